import { errors } from '../http/errors.js';
import { sql } from 'kysely';
import type { ConfigKysely } from '../repository/open.js';
import { newId } from '../lib/ids.js';

export const CATEGORY_TYPES = ['views', 'boards', 'screens'] as const;
export type CategoryType = (typeof CATEGORY_TYPES)[number];

export interface Category {
  id: string;
  name: string;
  type: CategoryType;
}

/** Categories group views and boards (and, later, screens). Names are unique per type, ignoring case. */
export class Categories {
  constructor(private readonly db: ConfigKysely) {}

  async list(account: string, type: CategoryType): Promise<Category[]> {
    return this.db
      .selectFrom('categories')
      .select(['id', 'name', 'type'])
      .where('account', '=', account)
      .where('type', '=', type)
      .orderBy(sql`lower(name)`)
      .execute();
  }

  async get(account: string, type: CategoryType, id: string): Promise<Category | undefined> {
    return this.db.selectFrom('categories').select(['id', 'name', 'type']).where('account', '=', account).where('type', '=', type).where('id', '=', id).executeTakeFirst();
  }

  async create(account: string, type: CategoryType, name: string): Promise<Category> {
    const category = { id: newId(), name, type };
    try {
      await this.db.insertInto('categories').values({ id: category.id, account, type, name, created_at: new Date().toISOString() }).execute();
    } catch (error) {
      throw this.duplicate(error, name);
    }
    return category;
  }

  async rename(account: string, type: CategoryType, id: string, name: string): Promise<Category | undefined> {
    try {
      const changed = await this.db.updateTable('categories').set({ name }).where('account', '=', account).where('type', '=', type).where('id', '=', id).executeTakeFirst();
      return Number(changed.numUpdatedRows) ? { id, name, type } : undefined;
    } catch (error) {
      throw this.duplicate(error, name);
    }
  }

  /** Deletes a category; views and boards in it stay, only the label goes. */
  async delete(account: string, type: CategoryType, id: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const deleted = await trx.deleteFrom('categories').where('account', '=', account).where('type', '=', type).where('id', '=', id).executeTakeFirst();
      if (Number(deleted.numDeletedRows) && type === 'views') {
        // The ids are a JSON array in a text column; it is rewritten here rather than in SQL, which
        // spells JSON functions differently in each dialect. Each view is written only if it still
        // holds what was read, and read again if not, so a view saved meanwhile keeps its changes.
        for (let round = 0; round < 5; round++) {
          const views = await trx.selectFrom('views').select(['viewid', 'category_ids']).where('account', '=', account).execute();
          let raced = false;
          for (const view of views) {
            const ids = JSON.parse(view.category_ids) as string[];
            if (!ids.includes(id)) continue;
            const written = await trx
              .updateTable('views')
              .set({ category_ids: JSON.stringify(ids.filter((other) => other !== id)) })
              .where('viewid', '=', view.viewid)
              .where('category_ids', '=', view.category_ids)
              .executeTakeFirst();
            if (Number(written.numUpdatedRows) === 0) raced = true;
          }
          if (!raced) break;
        }
      }
      // A board has one category, in a column of its own.
      if (Number(deleted.numDeletedRows) && type === 'boards') {
        await trx.updateTable('boards').set({ category_id: null }).where('account', '=', account).where('category_id', '=', id).execute();
      }
      return Number(deleted.numDeletedRows) > 0;
    });
  }

  /** Maps category names (any case) to ids; unknown names are refused with Mezmo's message. */
  async idsForNames(account: string, names: string[], type: CategoryType = 'views'): Promise<string[]> {
    const known = new Map((await this.list(account, type)).map((category) => [category.name.toLowerCase(), category.id]));
    const unknown = names.filter((name) => !known.has(name.toLowerCase()));
    if (unknown.length) throw errors.invalidCategories(unknown);
    return [...new Set(names.map((name) => known.get(name.toLowerCase())!))];
  }

  async namesForIds(account: string, ids: string[], type: CategoryType = 'views'): Promise<string[]> {
    if (ids.length === 0) return [];
    const byId = new Map((await this.list(account, type)).map((category) => [category.id, category.name]));
    return ids.map((id) => byId.get(id)).filter((name): name is string => name !== undefined);
  }

  private duplicate(error: unknown, name: string): unknown {
    // SQLite says "UNIQUE constraint failed"; PostgreSQL reports SQLSTATE 23505 (unique_violation).
    const unique = error instanceof Error && (/UNIQUE/.test(error.message) || (error as { code?: string }).code === '23505');
    if (unique) return errors.conflict(`A category named "${name}" already exists`);
    return error;
  }
}
