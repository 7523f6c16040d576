import { createHash } from 'node:crypto';
import pg from 'pg';
import { type ConfigDatabase, openConfigDatabase } from '../repository/open.js';

/**
 * Which configuration database the suites run against. `npm test` runs the configuration suites
 * once on each: LOGSTEAD_TEST_DATABASE=postgres gives each test server a database of its own on a
 * real PostgreSQL server (LOGSTEAD_TEST_POSTGRES_URL, by default the development machines' local
 * server with trust authentication). Unset: SQLite in the data directory, as in production by default.
 */
export const testConfigDialect: 'sqlite' | 'postgres' = process.env.LOGSTEAD_TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite';

export const TEST_POSTGRES_URL = process.env.LOGSTEAD_TEST_POSTGRES_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/test';

const databaseName = (key: string) => `logstead_test_${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;

/**
 * The URL of a PostgreSQL database of its own for `key` (a test's data directory), created if
 * missing: reopening the same key reaches the same configuration, as reopening a data directory does.
 */
export async function testPostgresUrl(key: string): Promise<string> {
  const name = databaseName(key);
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops a test's database once nothing uses it any more. */
export async function dropTestPostgres(key: string): Promise<void> {
  const name = databaseName(key);
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

/** Settings that point a test server's configuration at this run's database. */
export async function testConfigEnv(dataDir: string): Promise<Record<string, string>> {
  if (testConfigDialect === 'sqlite') return {};
  return { LOGSTEAD_DATABASE_URL: await testPostgresUrl(dataDir) };
}

/**
 * A configuration database of this run's dialect for a unit test, keyed by a temporary directory:
 * SQLite in it, or a PostgreSQL database of its own. `drop` closes it and removes the PostgreSQL one.
 */
export async function openTestConfig(dir: string): Promise<{ database: ConfigDatabase; reopen(): Promise<ConfigDatabase>; drop(): Promise<void> }> {
  const location = async () => ({ dataDir: dir, databaseUrl: testConfigDialect === 'postgres' ? await testPostgresUrl(dir) : undefined });
  const opened: ConfigDatabase[] = [];
  const open = async () => {
    const { database } = await openConfigDatabase(await location());
    opened.push(database);
    return database;
  };
  const database = await open();
  return {
    database,
    reopen: open,
    async drop() {
      for (const each of opened) await each.close();
      if (testConfigDialect === 'postgres') await dropTestPostgres(dir);
    },
  };
}
