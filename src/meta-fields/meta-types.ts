import type { MetaFieldTypes } from './meta-field-types.js';

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

/**
 * Calls `visit` with every leaf path of a meta object and its type, in order (e.g. "user.id",
 * "number"), until it returns false; says whether it went through them all. A NUL in a key is
 * recorded as U+FFFD: PostgreSQL's text cannot hold NUL, and the path only names the field's type.
 * A visitor, not a list of [path, type] pairs: ingest walks the meta of most lines.
 */
function forEachMetaField(meta: Record<string, unknown>, visit: (path: string, type: MetaType) => boolean, prefix = '', depth = 1): boolean {
  for (const rawKey in meta) {
    if (!Object.hasOwn(meta, rawKey)) continue;
    const value = meta[rawKey];
    const type = typeOf(value);
    if (type === null) continue;
    const key = rawKey.includes('\u0000') ? rawKey.replaceAll('\u0000', '\ufffd') : rawKey;
    const path = prefix ? `${prefix}.${key}` : key;
    if (type === 'object' && depth < MAX_DEPTH) {
      if (!forEachMetaField(value as Record<string, unknown>, visit, path, depth + 1)) return false;
    } else if (!visit(path, type)) return false;
  }
  return true;
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

/** Field names of the common formats whose first type an organisation records (settleParsedTypes). */
export const MAX_PARSED_FIELD_NAMES = 5000;

/**
 * The per-organisation meta rules. Types (spec §2.1): the first type seen at a path wins, and a
 * line whose meta disagrees keeps its line but not its meta fields. Growth (compat reference
 * §2.7, Mezmo indexes about 500 unique fields a day): each organisation adds at most
 * `maxNewFieldsPerDay` new paths per UTC day; a line whose meta would add more is stored with its
 * meta as text only, as for a type clash. Fields already indexed keep being indexed.
 * Types and first days live in the configuration database that every node shares, so both rules
 * hold across restarts and nodes; a cache keeps the hot path off the database, and a path the cache
 * does not know is registered there, where the first registration wins.
 */
export class MetaTypeRegistry {
  private readonly cache = new Map<string, Map<string, MetaType>>();
  private readonly days = new Map<string, { day: string; added: number }>();
  private readonly parsedTypes = new Map<string, Map<string, string>>();
  private readonly now: () => number;

  constructor(
    private readonly store: MetaFieldTypes,
    private readonly options: MetaTypeOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  private async typesOf(account: string): Promise<Map<string, MetaType>> {
    let types = this.cache.get(account);
    if (!types) {
      const loaded = new Map((await this.store.list(account)).map((row) => [row.path, row.type as MetaType]));
      // Another request of the same organisation may have loaded it meanwhile: keep one map.
      types = this.cache.get(account) ?? loaded;
      this.cache.set(account, types);
    }
    return types;
  }

  private async today(account: string): Promise<{ day: string; added: number }> {
    const day = utcDay(this.now());
    let entry = this.days.get(account);
    if (!entry || entry.day !== day) {
      entry = { day, added: await this.store.countOnDay(account, day) };
      this.days.set(account, entry);
    }
    return entry;
  }

  /**
   * Whether each line's meta may be parsed as fields (null where a line has no meta object), in
   * line order, as if the lines came one by one; registers the paths they are first to use.
   */
  async admitAll(account: string, metas: Array<Record<string, unknown> | null>): Promise<Array<MetaVerdict | null>> {
    const types = await this.typesOf(account);
    // A second round only when another node registered one of our new paths with another type first.
    for (let round = 0; ; round++) {
      const today = await this.today(account);
      const proposed = new Map<string, MetaType>();
      let added = today.added;
      const judge = (meta: Record<string, unknown>): MetaVerdict => {
        let fresh: Map<string, MetaType> | undefined;
        const agrees = forEachMetaField(meta, (path, type) => {
          // {"a":{"b":1}} and {"a.b":"x"} name the same path: within one line they must agree too.
          const known = types.get(path) ?? proposed.get(path) ?? fresh?.get(path);
          if (known === undefined) (fresh ??= new Map()).set(path, type);
          return known === undefined || known === type;
        });
        if (!agrees) return 'typeConflict';
        if (fresh !== undefined) {
          if (added + fresh.size > this.options.maxNewFieldsPerDay) return 'dailyCap';
          for (const [path, type] of fresh) proposed.set(path, type);
          added += fresh.size;
        }
        return 'indexed';
      };
      // Consecutive lines that share one meta object (OTLP's records of a resource) share its
      // verdict: the first one proposed its new paths, which the next would find agreeing.
      let previousMeta: Record<string, unknown> | undefined;
      let previousVerdict: MetaVerdict = 'indexed';
      const verdicts = metas.map((meta): MetaVerdict | null => {
        if (meta === null) return null;
        if (meta !== previousMeta) {
          previousMeta = meta;
          previousVerdict = judge(meta);
        }
        return previousVerdict;
      });
      if (proposed.size === 0) return verdicts;
      const held = await this.store.register(account, proposed, today.day);
      for (const [path, type] of held) types.set(path, type as MetaType);
      today.added = await this.store.countOnDay(account, today.day);
      const lostAny = [...proposed].some(([path, type]) => held.get(path) !== type);
      if (!lostAny || round > 0) return verdicts;
    }
  }

  /**
   * The same first-type-wins rule for the fields the common formats parse from a line's text
   * (src/ingest/formats): a field first seen as text keeps later numbers as text, so one field
   * never holds both. A field first seen as a number cannot make text a number and keeps it as
   * text. Changes the objects in place; returns whether any value changed. Names a format
   * parses are few and fixed, so they are not counted against the daily cap on new meta fields.
   */
  async settleParsedTypes(account: string, lines: Array<Record<string, unknown>>): Promise<boolean> {
    let types = this.parsedTypes.get(account);
    if (!types) {
      const loaded = await this.store.parsedTypes(account);
      types = this.parsedTypes.get(account) ?? loaded;
      this.parsedTypes.set(account, types);
    }
    let fresh: Map<string, string> | undefined;
    // logfmt keys are the sender's to choose: past this many names a new one is not recorded (its
    // values are kept as parsed), so a sender inventing keys cannot grow the table without end.
    let room = MAX_PARSED_FIELD_NAMES - types.size;
    for (const fields of lines) {
      for (const name in fields) {
        const value = fields[name];
        const type = typeof value === 'number' ? 'number' : typeof value === 'string' ? 'string' : null;
        if (type !== null && room > 0 && !types.has(name) && !fresh?.has(name)) {
          (fresh ??= new Map()).set(name, type);
          room--;
        }
      }
    }
    if (fresh) for (const [name, type] of await this.store.registerParsed(account, fresh)) types.set(name, type);
    let changed = false;
    for (const fields of lines) {
      for (const name in fields) {
        if (typeof fields[name] === 'number' && types.get(name) === 'string') {
          fields[name] = String(fields[name]);
          changed = true;
        }
      }
    }
    return changed;
  }

  /** Today's count of new fields against the limit. */
  async day(account: string): Promise<MetaFieldDay> {
    const { day, added } = await this.today(account);
    return { day, limit: this.options.maxNewFieldsPerDay, added };
  }

  /** Every indexed field of the organisation, by path. */
  async fields(account: string): Promise<MetaFieldInfo[]> {
    return (await this.store.list(account)).map((row) => ({ path: row.path, type: row.type as MetaType, firstIndexed: row.firstDay || null }));
  }
}
