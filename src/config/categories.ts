import { errors } from '../http/errors.js';
import type { ConfigDb } from './database.js';
import { newId } from './ids.js';

export const CATEGORY_TYPES = ['views', 'boards', 'screens'] as const;
export type CategoryType = (typeof CATEGORY_TYPES)[number];

export interface Category {
  id: string;
  name: string;
  type: CategoryType;
}

/** Categories group views (and, later, boards and screens). Names are unique per type, ignoring case. */
export class Categories {
  constructor(private readonly db: ConfigDb) {}

  list(account: string, type: CategoryType): Category[] {
    return this.db
      .prepare<[string, string], Category>(`SELECT id, name, type FROM categories WHERE account = ? AND type = ? ORDER BY lower(name)`)
      .all(account, type);
  }

  get(account: string, type: CategoryType, id: string): Category | undefined {
    return this.db
      .prepare<[string, string, string], Category>(`SELECT id, name, type FROM categories WHERE account = ? AND type = ? AND id = ?`)
      .get(account, type, id);
  }

  create(account: string, type: CategoryType, name: string): Category {
    const category = { id: newId(), name, type };
    try {
      this.db
        .prepare(`INSERT INTO categories (id, account, type, name, created_at) VALUES (?, ?, ?, ?, ?)`)
        .run(category.id, account, type, name, new Date().toISOString());
    } catch (error) {
      throw this.duplicate(error, name);
    }
    return category;
  }

  rename(account: string, type: CategoryType, id: string, name: string): Category | undefined {
    try {
      const changed = this.db.prepare(`UPDATE categories SET name = ? WHERE account = ? AND type = ? AND id = ?`).run(name, account, type, id);
      return changed.changes ? { id, name, type } : undefined;
    } catch (error) {
      throw this.duplicate(error, name);
    }
  }

  /** Deletes a category; views in it stay, only the label goes. */
  delete(account: string, type: CategoryType, id: string): boolean {
    return this.db.transaction(() => {
      const deleted = this.db.prepare(`DELETE FROM categories WHERE account = ? AND type = ? AND id = ?`).run(account, type, id);
      if (deleted.changes && type === 'views') {
        this.db
          .prepare(
            `UPDATE views SET category_ids = (SELECT json_group_array(value) FROM json_each(views.category_ids) WHERE value != ?)
              WHERE account = ? AND EXISTS (SELECT 1 FROM json_each(views.category_ids) WHERE value = ?)`,
          )
          .run(id, account, id);
      }
      return deleted.changes > 0;
    })();
  }

  /** Maps view category names (any case) to ids; unknown names are refused with Mezmo's message. */
  idsForNames(account: string, names: string[]): string[] {
    const known = new Map(this.list(account, 'views').map((category) => [category.name.toLowerCase(), category.id]));
    const unknown = names.filter((name) => !known.has(name.toLowerCase()));
    if (unknown.length) throw errors.invalidCategories(unknown);
    return [...new Set(names.map((name) => known.get(name.toLowerCase())!))];
  }

  namesForIds(account: string, ids: string[]): string[] {
    if (ids.length === 0) return [];
    const byId = new Map(this.list(account, 'views').map((category) => [category.id, category.name]));
    return ids.map((id) => byId.get(id)).filter((name): name is string => name !== undefined);
  }

  private duplicate(error: unknown, name: string): unknown {
    if (error instanceof Error && /UNIQUE/.test(error.message)) return errors.conflict(`A category named "${name}" already exists`);
    return error;
  }
}
