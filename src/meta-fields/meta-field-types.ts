import type { ConfigKysely } from '../repository/open.js';

export interface StoredMetaField {
  path: string;
  type: string;
  /** UTC day (YYYY-MM-DD) it was first indexed; '' for fields indexed before days were recorded. */
  firstDay: string;
}

/**
 * Each organisation's meta field types: the first type registered at a path wins, across every
 * node, because a registration never overwrites (INSERT … ON CONFLICT DO NOTHING) and the winner
 * is read back in the same transaction.
 */
export class MetaFieldTypes {
  constructor(private readonly db: ConfigKysely) {}

  async list(account: string): Promise<StoredMetaField[]> {
    const rows = await this.db.selectFrom('meta_field_types').select(['path', 'type', 'first_day']).where('account', '=', account).orderBy('path').execute();
    return rows.map((row) => ({ path: row.path, type: row.type, firstDay: row.first_day }));
  }

  /** How many fields the organisation first indexed on this UTC day. */
  async countOnDay(account: string, day: string): Promise<number> {
    const row = await this.db
      .selectFrom('meta_field_types')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account', '=', account)
      .where('first_day', '=', day)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * Registers these paths with these types unless a type is already registered; returns the type
   * that holds for each path afterwards, which is another node's where it was first.
   */
  async register(account: string, fields: Map<string, string>, day: string): Promise<Map<string, string>> {
    if (fields.size === 0) return new Map();
    // Sorted: two nodes inserting the same new paths lock them in the same order, so neither waits
    // on the other's (a deadlock on PostgreSQL).
    const paths = [...fields.keys()].sort();
    return this.db.transaction().execute(async (trx) => {
      // In slices: SQLite allows a limited number of bound values per statement.
      for (let i = 0; i < paths.length; i += 500) {
        await trx
          .insertInto('meta_field_types')
          .values(paths.slice(i, i + 500).map((path) => ({ account, path, type: fields.get(path)!, first_day: day })))
          .onConflict((conflict) => conflict.columns(['account', 'path']).doNothing())
          .execute();
      }
      const held = new Map<string, string>();
      for (let i = 0; i < paths.length; i += 500) {
        const rows = await trx
          .selectFrom('meta_field_types')
          .select(['path', 'type'])
          .where('account', '=', account)
          .where('path', 'in', paths.slice(i, i + 500))
          .execute();
        for (const row of rows) held.set(row.path, row.type);
      }
      return held;
    });
  }

  /** The first types of the organisation's format-parsed fields, by name. */
  async parsedTypes(account: string): Promise<Map<string, string>> {
    const rows = await this.db.selectFrom('parsed_field_types').select(['name', 'type']).where('account', '=', account).execute();
    return new Map(rows.map((row) => [row.name, row.type]));
  }

  /** As register, for format-parsed fields: the first type recorded for a name holds on every node. */
  async registerParsed(account: string, fields: Map<string, string>): Promise<Map<string, string>> {
    if (fields.size === 0) return new Map();
    const names = [...fields.keys()].sort();
    return this.db.transaction().execute(async (trx) => {
      const held = new Map<string, string>();
      for (let i = 0; i < names.length; i += 500) {
        const slice = names.slice(i, i + 500);
        await trx
          .insertInto('parsed_field_types')
          .values(slice.map((name) => ({ account, name, type: fields.get(name)! })))
          .onConflict((conflict) => conflict.columns(['account', 'name']).doNothing())
          .execute();
        const rows = await trx.selectFrom('parsed_field_types').select(['name', 'type']).where('account', '=', account).where('name', 'in', slice).execute();
        for (const row of rows) held.set(row.name, row.type);
      }
      return held;
    });
  }
}
