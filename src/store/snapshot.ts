import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openChdbExecutor } from './chdb-executor.js';
import type { SqlExecutor } from './executor.js';
import { LOGS_TABLE } from './schema.js';

/**
 * Snapshots of the log database with the engine's own BACKUP and RESTORE. The whole database is
 * taken, not just the log table, so a table added later is carried along without a change here.
 * Every session works in ClickHouse's `default` database (the log table is named unqualified).
 */
const LOG_DATABASE = 'default';

/** A ClickHouse string literal, for the few statements that take no bound parameters (DDL). */
const sqlString = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/**
 * Writes a consistent snapshot of the log database to `dir`, which must not exist yet. BACKUP
 * takes the set of parts as they are when it starts, so lines written meanwhile are either wholly
 * in it (their insert finished first) or wholly out; ingest and merges go on while it copies.
 */
export async function backupLogDatabase(executor: SqlExecutor, dir: string): Promise<void> {
  await executor.exec(`BACKUP DATABASE ${LOG_DATABASE} TO File({dir:String})`, { dir });
}

/** The engine version, for the backup's manifest: a backup restores on this version or newer. */
export async function engineVersion(executor: SqlExecutor): Promise<string> {
  const [{ version }] = await executor.rows<{ version: string }>('SELECT version() AS version');
  return version;
}

/** Lines in the log table of the open engine (0 when it has none yet). */
export async function countLines(executor: SqlExecutor, database = LOG_DATABASE): Promise<number> {
  const [{ tables }] = await executor.rows<{ tables: string }>(
    'SELECT count() AS tables FROM system.tables WHERE database = {database:String} AND name = {table:String}',
    { database, table: LOGS_TABLE },
  );
  if (Number(tables) === 0) return 0;
  const [{ lines }] = await executor.rows<{ lines: string }>(`SELECT count() AS lines FROM ${database}.${LOGS_TABLE}`);
  return Number(lines);
}

/**
 * Reads a snapshot back through the engine and counts its lines: proof that it restores, and the
 * exact number it holds (counting the live table after BACKUP would include later lines). It runs
 * in a throwaway engine, since a snapshot mounted in the live one would stay registered there if
 * the process died before unmounting it.
 */
export async function countSnapshotLines(dir: string): Promise<number> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-verify-'));
  try {
    const executor = await openChdbExecutor(scratch);
    try {
      await executor.exec(`CREATE DATABASE snapshot ENGINE = Backup(${sqlString(LOG_DATABASE)}, File(${sqlString(dir)}))`);
      return await countLines(executor, 'snapshot');
    } finally {
      await executor.close();
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Replaces the log database of the open engine with the snapshot in `dir`. Tables are dropped
 * first (restore refuses to add to a table that has rows); the engine must be stopped otherwise,
 * which opening it here guarantees: it holds a lock on its directory.
 */
export async function restoreLogDatabase(executor: SqlExecutor, dir: string): Promise<void> {
  const tables = await executor.rows<{ name: string }>('SELECT name FROM system.tables WHERE database = {database:String}', {
    database: LOG_DATABASE,
  });
  for (const { name } of tables) {
    await executor.exec(`DROP TABLE ${LOG_DATABASE}.\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\` SYNC`);
  }
  await executor.exec(`RESTORE DATABASE ${LOG_DATABASE} FROM File({dir:String})`, { dir });
}
