import type { ConfigDb } from '../config/database.js';

/** Meta is parsed into fields three levels deep (compat reference §2.7); deeper values count as objects. */
const MAX_DEPTH = 3;

export type MetaType = 'string' | 'number' | 'boolean' | 'array' | 'object';

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

/** Whether a line's meta is indexed as fields, and if not, which rule kept it out. */
export type MetaVerdict = 'indexed' | 'typeConflict' | 'dailyCap';

export interface MetaFieldInfo {
  path: string;
  type: MetaType;
  /** UTC day the field was first indexed; null for fields indexed before days were recorded. */
  firstIndexed: string | null;
}

export interface MetaFieldDay {
  day: string;
  limit: number;
  added: number;
}

export interface MetaTypeOptions {
  /** New field paths an organisation may add per UTC day (LOGSTEAD_MAX_META_FIELDS_PER_DAY). */
  maxNewFieldsPerDay: number;
  now?: () => number;
}

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The per-organisation meta rules. Types (spec §2.1): the first type seen at a path wins, and a
 * line whose meta disagrees keeps its line but not its meta fields. Growth (compat reference
 * §2.7, Mezmo indexes about 500 unique fields a day): each organisation adds at most
 * `maxNewFieldsPerDay` new paths per UTC day; a line whose meta would add more is stored with its
 * meta as text only, as for a type clash. Fields already indexed keep being indexed.
 * Types and first days live in the config database, so both rules hold across restarts; a cache
 * keeps the hot path off SQLite.
 */
export class MetaTypeRegistry {
  private readonly cache = new Map<string, Map<string, MetaType>>();
  private readonly days = new Map<string, { day: string; added: number }>();
  private readonly load;
  private readonly insert;
  private readonly countDay;
  private readonly list;
  private readonly now: () => number;

  constructor(
    private readonly db: ConfigDb,
    private readonly options: MetaTypeOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.load = db.prepare<[string], { path: string; type: MetaType }>(
      `SELECT path, type FROM meta_field_types WHERE account = ?`,
    );
    this.insert = db.prepare(`INSERT OR IGNORE INTO meta_field_types (account, path, type, first_day) VALUES (?, ?, ?, ?)`);
    this.countDay = db.prepare<[string, string], { n: number }>(
      `SELECT count(*) AS n FROM meta_field_types WHERE account = ? AND first_day = ?`,
    );
    this.list = db.prepare<[string], { path: string; type: MetaType; first_day: string }>(
      `SELECT path, type, first_day FROM meta_field_types WHERE account = ? ORDER BY path`,
    );
  }

  private typesOf(account: string): Map<string, MetaType> {
    let types = this.cache.get(account);
    if (!types) {
      types = new Map(this.load.all(account).map((row) => [row.path, row.type]));
      this.cache.set(account, types);
    }
    return types;
  }

  private today(account: string): { day: string; added: number } {
    const day = utcDay(this.now());
    let entry = this.days.get(account);
    if (!entry || entry.day !== day) {
      entry = { day, added: this.countDay.get(account, day)?.n ?? 0 };
      this.days.set(account, entry);
    }
    return entry;
  }

  /** Whether this meta may be parsed as fields; registers the paths it is first to use. */
  admit(account: string, meta: Record<string, unknown>): MetaVerdict {
    const types = this.typesOf(account);
    const fresh = new Map<string, MetaType>();
    for (const [path, type] of metaFieldTypes(meta)) {
      // {"a":{"b":1}} and {"a.b":"x"} name the same path: within one line they must agree too.
      const known = types.get(path) ?? fresh.get(path);
      if (known === undefined) fresh.set(path, type);
      else if (known !== type) return 'typeConflict';
    }
    if (fresh.size > 0) {
      const today = this.today(account);
      if (today.added + fresh.size > this.options.maxNewFieldsPerDay) return 'dailyCap';
      this.db.transaction(() => {
        for (const [path, type] of fresh) this.insert.run(account, path, type, today.day);
      })();
      for (const [path, type] of fresh) types.set(path, type);
      today.added += fresh.size;
    }
    return 'indexed';
  }

  /** Today's count of new fields against the limit. */
  day(account: string): MetaFieldDay {
    const { day, added } = this.today(account);
    return { day, limit: this.options.maxNewFieldsPerDay, added };
  }

  /** Every indexed field of the organisation, by path. */
  fields(account: string): MetaFieldInfo[] {
    return this.list.all(account).map((row) => ({ path: row.path, type: row.type, firstIndexed: row.first_day || null }));
  }
}
