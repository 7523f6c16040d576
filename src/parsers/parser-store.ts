import { randomUUID } from 'node:crypto';
import type { ConfigKysely } from '../repository/open.js';

export type CaptureType = 'string' | 'number' | 'boolean';

/** A custom parsing rule as the API shows it. */
export interface Parser {
  id: string;
  name: string;
  apps: string[];
  hosts: string[];
  query: string;
  pattern: string;
  types: Record<string, CaptureType>;
  created: number;
  updated: number;
}

export type ParserInput = Pick<Parser, 'name' | 'apps' | 'hosts' | 'query' | 'pattern' | 'types'>;

type Row = { id: string; account: string; name: string; apps: string; hosts: string; query: string; pattern: string; types: string; created_at: number; updated_at: number };

const fromRow = (row: Row): Parser & { account: string } => ({
  id: row.id,
  account: row.account,
  name: row.name,
  apps: JSON.parse(row.apps),
  hosts: JSON.parse(row.hosts),
  query: row.query,
  pattern: row.pattern,
  types: JSON.parse(row.types),
  created: Number(row.created_at),
  updated: Number(row.updated_at),
});

const toColumns = (input: ParserInput) => ({
  name: input.name,
  apps: JSON.stringify(input.apps),
  hosts: JSON.stringify(input.hosts),
  query: input.query,
  pattern: input.pattern,
  types: JSON.stringify(input.types),
});

/** Outcomes a write can have besides success. */
export type WriteRefusal = 'overLimit' | 'nameTaken';

/** The organisations' parsing rules in the configuration database, in the order they were made. */
export class ParserStore {
  constructor(
    private readonly db: ConfigKysely,
    private readonly now: () => number = Date.now,
  ) {}

  async list(account: string): Promise<Parser[]> {
    const rows = await this.db.selectFrom('parsers').selectAll().where('account', '=', account).orderBy('created_at').orderBy('id').execute();
    return rows.map((row) => strip(fromRow(row)));
  }

  /** Every organisation's rules, for a node's cache. */
  async all(): Promise<Array<Parser & { account: string }>> {
    const rows = await this.db.selectFrom('parsers').selectAll().orderBy('created_at').orderBy('id').execute();
    return rows.map(fromRow);
  }

  async get(account: string, id: string): Promise<Parser | undefined> {
    const row = await this.db.selectFrom('parsers').selectAll().where('account', '=', account).where('id', '=', id).executeTakeFirst();
    return row ? strip(fromRow(row)) : undefined;
  }

  /** Adds a rule unless the organisation has `limit` already or one of that name; one transaction, so nothing is half made. */
  async create(account: string, input: ParserInput, limit: number): Promise<Parser | WriteRefusal> {
    return this.db.transaction().execute(async (trx) => {
      const existing = await trx.selectFrom('parsers').select(['name']).where('account', '=', account).execute();
      if (existing.length >= limit) return 'overLimit';
      if (existing.some((row) => row.name === input.name)) return 'nameTaken';
      const at = this.now();
      const row: Row = { id: randomUUID(), account, ...toColumns(input), created_at: at, updated_at: at };
      await trx.insertInto('parsers').values(row).execute();
      return strip(fromRow(row));
    });
  }

  async update(account: string, id: string, input: ParserInput): Promise<Parser | WriteRefusal | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const clash = await trx.selectFrom('parsers').select(['id']).where('account', '=', account).where('name', '=', input.name).where('id', '!=', id).executeTakeFirst();
      if (clash) return 'nameTaken';
      const result = await trx.updateTable('parsers').set({ ...toColumns(input), updated_at: this.now() }).where('account', '=', account).where('id', '=', id).executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return undefined;
      const row = await trx.selectFrom('parsers').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      return strip(fromRow(row));
    });
  }

  async delete(account: string, id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('parsers').where('account', '=', account).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

function strip(parser: Parser & { account: string }): Parser {
  const { account: _account, ...rest } = parser;
  return rest;
}
