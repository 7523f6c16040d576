import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, Migrator, PostgresAdapter, PostgresDialect, SqliteDialect, type SqliteDatabase, sql } from 'kysely';
import pg from 'pg';
import { LEGACY_SQLITE_VERSION, finishLegacySteps } from './legacy-sqlite-migrations.js';
import { CONFIG_MIGRATIONS, configMigrations } from './migrations.js';
import type { ConfigDialect, ConfigTables } from './tables.js';
import { keepToOwner } from '../lib/owner-only.js';

export type { ConfigDialect };
export type ConfigKysely = Kysely<ConfigTables>;

export const CONFIG_FILE = 'config.sqlite';

/**
 * The configuration database, whichever it is: the embedded SQLite file in the data directory, or
 * a PostgreSQL server that several nodes share. Everything above this module speaks Kysely, which
 * writes each query in the dialect's own SQL; only the SQLite adapter calls a database synchronously.
 */
export interface ConfigDatabase {
  db: ConfigKysely;
  dialect: ConfigDialect;
  /** The embedded file's connection, for what only SQLite can do (online backup); absent on PostgreSQL. */
  sqlite?: Database.Database;
  close(): Promise<void>;
}

export interface ConfigLocation {
  dataDir: string;
  /** A postgres:// URL; unset, the embedded SQLite file under the data directory. */
  databaseUrl?: string;
}

/** Whether a configuration database (or a transaction on it) is PostgreSQL, for what only it needs: row locks. */
export const onPostgres = (db: Kysely<any>): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

/** Opens the configuration database and brings it to this build's schema; says which migrations it applied. */
export async function openConfigDatabase(location: ConfigLocation): Promise<{ database: ConfigDatabase; applied: string[] }> {
  const database = location.databaseUrl ? openPostgres(location.databaseUrl) : openSqlite(location.dataDir);
  try {
    return { database, applied: await migrate(database) };
  } catch (error) {
    await database.close();
    throw error;
  }
}

function openSqlite(dataDir: string): ConfigDatabase {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, CONFIG_FILE);
  // Made 0600 before SQLite opens it: SQLite gives its -wal and -shm files the database file's mode.
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  for (const made of [file, `${file}-wal`, `${file}-shm`]) keepToOwner(made);
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  // FULL: a created key or a registered meta type must survive a power cut once acknowledged.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  try {
    finishLegacySteps(sqlite);
  } catch (error) {
    sqlite.close();
    throw error;
  }
  const db = new Kysely<ConfigTables>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  return { db, dialect: 'sqlite', sqlite, close: () => db.destroy() };
}

/** Statements kept for reuse; the configuration's queries are a few dozen shapes. */
const STATEMENT_CACHE_SIZE = 256;

/**
 * The SQLite connection as Kysely sees it, with each SQL text prepared once: preparing is most of
 * the cost of the small queries every request makes. Kysely runs one statement at a time on this
 * connection, so a statement is never used by two queries at once.
 */
function withStatementCache(sqlite: Database.Database): SqliteDatabase {
  const statements = new Map<string, Database.Statement>();
  return {
    prepare(text: string) {
      let statement = statements.get(text);
      if (!statement) {
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
        statement = sqlite.prepare(text);
        statements.set(text, statement);
      }
      return statement;
    },
    close: () => sqlite.close(),
  };
}

/** 64-bit integers (counts, ids, Unix ms) as JavaScript numbers: every value stored here fits. */
const pgTypes = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === pg.types.builtins.INT8 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

function openPostgres(url: string): ConfigDatabase {
  const pool = new pg.Pool({ connectionString: url, max: 10, types: pgTypes });
  // An idle connection that the server drops must not bring the process down.
  pool.on('error', () => {});
  const db = new Kysely<ConfigTables>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', close: () => db.destroy() };
}

async function migrate(database: ConfigDatabase): Promise<string[]> {
  await refuseNewerSchema(database.db);
  const migrator = new Migrator({ db: database.db, provider: configMigrations(database.dialect) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  // A new embedded file says it has the legacy steps' schema too (step 1 is that schema), so a
  // release from before Kysely, opening it after a downgrade, takes it as its own and not as empty.
  if (database.sqlite && (database.sqlite.pragma('user_version', { simple: true }) as number) === 0) {
    database.sqlite.pragma(`user_version = ${LEGACY_SQLITE_VERSION}`);
  }
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
}

/** A configuration written by a newer build has migrations this one does not know: it is not opened. */
async function refuseNewerSchema(db: ConfigKysely): Promise<void> {
  const applied = await appliedMigrations(db);
  const unknown = applied.filter((name) => !CONFIG_MIGRATIONS.includes(name));
  if (unknown.length > 0) {
    throw new Error(`the configuration database comes from a newer Logstead (migrations ${unknown.join(', ')}); run that version or newer`);
  }
}

/** The migrations a configuration database has recorded, oldest first; none for a new one. */
export async function appliedMigrations(db: Kysely<any>): Promise<string[]> {
  try {
    const rows = await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(db);
    return rows.rows.map((row) => row.name);
  } catch {
    return [];
  }
}
