import { createHash } from 'node:crypto';
import { openChdbExecutor } from '../store/chdb-executor.js';
import { openClickHouseExecutor } from '../store/clickhouse-executor.js';
import type { SqlExecutor } from '../store/executor.js';
import { sharedChdbHttpServer } from './chdb-http-server.js';

/**
 * Which log engine the store and search suites run against. `npm test` runs them once on each:
 * LOGSTEAD_TEST_EXECUTOR=clickhouse selects the server executor (@clickhouse/client over HTTP),
 * talking to LOGSTEAD_TEST_CLICKHOUSE_URL when set (a real server), else to the embedded engine
 * served over HTTP by chdb-http-server.ts. Unset: embedded chDB, as in production by default.
 */
export const testEngine: 'chdb' | 'clickhouse' = process.env.LOGSTEAD_TEST_EXECUTOR === 'clickhouse' ? 'clickhouse' : 'chdb';

async function serverUrl(): Promise<string> {
  return process.env.LOGSTEAD_TEST_CLICKHOUSE_URL?.trim() || (await sharedChdbHttpServer()).url;
}

/**
 * The URL of a database of its own on the test server, for one test's data: its name comes from
 * `key` (a test's temporary directory), so reopening the same key reaches the same lines, as
 * reopening a data directory does. Created if missing.
 */
export async function testDatabaseUrl(key: string): Promise<string> {
  const base = new URL(await serverUrl());
  const database = `logstead_test_${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
  const admin = await openClickHouseExecutor({ url: base.toString() });
  try {
    await admin.exec(`CREATE DATABASE IF NOT EXISTS ${database}`);
  } finally {
    await admin.close();
  }
  base.pathname = `/${database}`;
  return base.toString();
}

/** The log engine for a test's data directory, of the kind this run tests. */
export async function openTestExecutor(dir: string): Promise<SqlExecutor> {
  if (testEngine === 'chdb') return openChdbExecutor(dir);
  return openClickHouseExecutor({ url: await testDatabaseUrl(dir) });
}

/** Settings that point a test server's log store at this run's engine. */
export async function testEngineEnv(dataDir: string): Promise<Record<string, string>> {
  if (testEngine === 'chdb') return {};
  return { LOGSTEAD_CLICKHOUSE_URL: await testDatabaseUrl(dataDir) };
}
