import type { ConfigDb } from '../config/database.js';

/** Meta is parsed into fields three levels deep (compat reference §2.7); deeper values count as objects. */
const MAX_DEPTH = 3;

type MetaType = 'string' | 'number' | 'boolean' | 'array' | 'object';

function typeOf(value: unknown): MetaType | null {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  if (type === 'string' || type === 'number' || type === 'boolean' || type === 'object') return type;
  return null;
}

/** Every leaf path of a meta object with its type, e.g. ["user.id", "number"]. */
export function metaFieldTypes(meta: Record<string, unknown>, prefix = '', depth = 1): Array<[string, MetaType]> {
  const out: Array<[string, MetaType]> = [];
  for (const [key, value] of Object.entries(meta)) {
    const path = prefix ? `${prefix}.${key}` : key;
    const type = typeOf(value);
    if (type === null) continue;
    if (type === 'object' && depth < MAX_DEPTH) {
      out.push(...metaFieldTypes(value as Record<string, unknown>, path, depth + 1));
    } else {
      out.push([path, type]);
    }
  }
  return out;
}

/**
 * The per-organisation meta type rule (spec §2.1): the first type seen at a path wins, and a line
 * whose meta disagrees keeps its line but not its meta fields. Types live in the config database,
 * so the rule holds across restarts; a cache keeps the hot path off SQLite.
 */
export class MetaTypeRegistry {
  private readonly cache = new Map<string, Map<string, MetaType>>();
  private readonly load;
  private readonly insert;

  constructor(private readonly db: ConfigDb) {
    this.load = db.prepare<[string], { path: string; type: MetaType }>(
      `SELECT path, type FROM meta_field_types WHERE account = ?`,
    );
    this.insert = db.prepare(`INSERT OR IGNORE INTO meta_field_types (account, path, type) VALUES (?, ?, ?)`);
  }

  private typesOf(account: string): Map<string, MetaType> {
    let types = this.cache.get(account);
    if (!types) {
      types = new Map(this.load.all(account).map((row) => [row.path, row.type]));
      this.cache.set(account, types);
    }
    return types;
  }

  /** Whether this meta may be parsed as fields; registers the paths it is first to use. */
  admit(account: string, meta: Record<string, unknown>): boolean {
    const types = this.typesOf(account);
    const fields = metaFieldTypes(meta);
    const fresh: Array<[string, MetaType]> = [];
    for (const [path, type] of fields) {
      const known = types.get(path);
      if (known === undefined) fresh.push([path, type]);
      else if (known !== type) return false;
    }
    if (fresh.length > 0) {
      this.db.transaction(() => {
        for (const [path, type] of fresh) this.insert.run(account, path, type);
      })();
      for (const [path, type] of fresh) types.set(path, type);
    }
    return true;
  }
}
