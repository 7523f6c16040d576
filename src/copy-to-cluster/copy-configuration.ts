import { type Kysely, sql } from 'kysely';
import type { ConfigDatabase, ConfigKysely } from '../repository/open.js';
import type { ConfigTables } from '../repository/tables.js';
import { FIRST_ORGANISATION_LOCK } from '../accounts/accounts.js';

/**
 * Copies every row of an embedded configuration (SQLite) into a cluster's (PostgreSQL), ids
 * included, in one transaction on the target: a failure leaves the target as it was. Both
 * databases are at this build's schema (openConfigDatabase migrates them), so rows go across
 * whole, whatever columns the tables have gained.
 */

/**
 * Tables that are not copied: node starts number one store's nodes; sign-on attempts live for
 * minutes; the migrations table is each database's own.
 */
type NotCopied = 'node_starts' | 'sign_on_attempts';
type CopiedTable = Exclude<keyof ConfigTables, NotCopied>;

/**
 * The order rows are copied in: every table after the tables its foreign keys name (accounts
 * first; presets before views; alert fires before deliveries before their attempts).
 */
export const COPIED_TABLES = [
  'accounts',
  'api_keys',
  'meta_field_types',
  'parsed_field_types',
  'parsers',
  'categories',
  'boards',
  'presets',
  'views',
  'alert_windows',
  'alert_incidents',
  'view_activity',
  'alert_fires',
  'deliveries',
  'delivery_attempts',
  'members',
  'member_groups',
  'group_members',
  'one_time_links',
  'audit_records',
  'sessions',
  'secrets',
  'export_files',
  'exclusion_rules',
  'exclusion_counts',
  'ingestion_control',
  'index_rate_alerts',
  'archive_configs',
  'archive_files',
  'archive_restores',
] as const satisfies readonly CopiedTable[];

// A table added to ConfigTables fails to compile here until it is placed in COPIED_TABLES (or NotCopied).
type Forgotten = Exclude<CopiedTable, (typeof COPIED_TABLES)[number]>;
const everyTableCopied: [Forgotten] extends [never] ? true : Forgotten = true;
void everyTableCopied;

/** Tables whose id is a serial column: their sequences must continue after the copied ids. */
const SERIAL_TABLES = ['alert_fires', 'deliveries', 'delivery_attempts', 'audit_records', 'archive_files'] as const satisfies readonly CopiedTable[];

/** PostgreSQL binds at most 65,535 parameters in one statement; stay well below. */
const PARAMETERS_PER_INSERT = 30_000;

export type CopiedRows = Record<(typeof COPIED_TABLES)[number], number>;

/** The configuration target already serves organisations: nothing is copied over them. */
export class TargetInUse extends Error {}

/** How many organisations a configuration holds. */
export async function countAccounts(db: ConfigKysely): Promise<number> {
  const row = await db.selectFrom('accounts').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

export const targetInUseMessage = (accounts: number) =>
  `The target configuration database already has ${accounts} organisation${accounts === 1 ? '' : 's'}: ` +
  'copy-to-cluster only fills an empty one (a node started on it creates an organisation, and a finished copy leaves them). Nothing was copied.';

/** Copies every table's rows from `source` to `target` (a PostgreSQL database); says how many rows each had. */
export async function copyConfiguration(source: ConfigKysely, target: ConfigDatabase): Promise<CopiedRows> {
  if (target.dialect !== 'postgres') throw new Error('the configuration target must be a PostgreSQL database');
  const from = source as unknown as Kysely<any>;
  return target.db.transaction().execute(async (transaction) => {
    const to = transaction as unknown as Kysely<any>;
    // Held to the end. A node that starts meanwhile takes the same lock before it looks for
    // organisations (Accounts.createFirstAccount), so it waits, then sees the copied ones; the
    // table lock keeps other writers out too.
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${FIRST_ORGANISATION_LOCK}, 0))`.execute(to);
    await sql`LOCK TABLE accounts IN EXCLUSIVE MODE`.execute(to);
    const accounts = await countAccounts(transaction);
    if (accounts > 0) throw new TargetInUse(targetInUseMessage(accounts));
    const copied = {} as CopiedRows;
    for (const table of COPIED_TABLES) {
      const rows: Array<Record<string, unknown>> = await from.selectFrom(table).selectAll().execute();
      const columns = rows.length > 0 ? Object.keys(rows[0]).length : 1;
      const chunk = Math.max(1, Math.floor(PARAMETERS_PER_INSERT / columns));
      for (let at = 0; at < rows.length; at += chunk) await to.insertInto(table).values(rows.slice(at, at + chunk)).execute();
      copied[table] = rows.length;
    }
    for (const table of SERIAL_TABLES) {
      // Next id after the largest copied one (1 for an empty table), so new rows never collide.
      await sql`SELECT setval(pg_get_serial_sequence(${table}, 'id'), COALESCE((SELECT MAX(id) FROM ${sql.table(table)}), 0) + 1, false)`.execute(to);
    }
    return copied;
  });
}
