import type { SqlExecutor } from './executor.js';
import { COMPRESS_BLOCK_SETTINGS, MERGE_STEP_SETTINGS, PART_CLEANUP_SETTINGS, VERTICAL_MERGE_SETTINGS, addMetaNote, addRestoredUntil, compressSmallColumns, createLogTables, createMigrationsTable, finishTextIndex, setTableSettings, upgradeTextIndex } from './schema.js';
import { type LogTables, MIGRATIONS_TABLE } from './tables.js';

interface LogMigration {
  version: number;
  name: string;
  apply(executor: SqlExecutor, tables: LogTables): Promise<void>;
}

/**
 * The log store's schema steps, applied in order, each recorded in MIGRATIONS_TABLE once done.
 * Append new steps; never edit one that has shipped. Every step must be safe to run again: a
 * step cut short (a crash, or two nodes starting at once) is run again at the next start, and a
 * data directory from before this table existed runs them all over the schema it already has
 * (each then finds its work done, or finishes it).
 */
const MIGRATIONS: LogMigration[] = [
  {
    version: 1,
    name: 'create the log table',
    async apply(executor, tables) {
      const [{ database }] = await executor.rows<{ database: string }>('SELECT currentDatabase() AS database');
      for (const statement of createLogTables(tables, database)) await executor.exec(statement);
    },
  },
  { version: 2, name: 'merge parts in bigger steps (merge_selector_base = 10)', apply: setTableSettings('merge_selector_base = 10') },
  { version: 3, name: 'text index on the current search text, built for stored lines', apply: upgradeTextIndex },
  { version: 4, name: 'meta_note: why a line\'s meta is not indexed', apply: addMetaNote },
  { version: 5, name: 'restored_until: lines restored from the archive, kept until then', apply: addRestoredUntil },
  { version: 6, name: 'app, level, logtype, meta_indexed and size compressed with ZSTD(1)', apply: compressSmallColumns },
  { version: 7, name: 'merged parts fsynced, and merged-away parts removed within seconds', apply: setTableSettings(PART_CLEANUP_SETTINGS) },
  { version: 8, name: 'compressed blocks of at most 256 KiB, so that merges hold less', apply: setTableSettings(COMPRESS_BLOCK_SETTINGS) },
  { version: 9, name: 'every merge vertical, so that merges hold less', apply: setTableSettings(VERTICAL_MERGE_SETTINGS) },
  { version: 10, name: 'merge parts in steps of 25 (merge_selector_base = 25), so each line is rewritten fewer times', apply: setTableSettings(MERGE_STEP_SETTINGS) },
];

/** The newest version this build migrates to. */
export const LOG_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

export interface AppliedMigration {
  version: number;
  name: string;
}

/**
 * Applies the migrations not yet recorded and returns them, then finishes any text index rebuild
 * cut short. Runs at every start and from `logstead migrate`.
 */
export async function migrateLogStore(executor: SqlExecutor, tables: LogTables): Promise<AppliedMigration[]> {
  await executor.exec(createMigrationsTable(tables));
  const done = new Set(
    (await executor.rows<{ version: number }>(`SELECT DISTINCT version FROM ${MIGRATIONS_TABLE}`)).map((row) => Number(row.version)),
  );
  const newest = Math.max(0, ...done);
  if (newest > LOG_SCHEMA_VERSION) {
    throw new Error(`The log store is at schema version ${newest}, from a newer Logstead than this one (${LOG_SCHEMA_VERSION}); upgrade Logstead.`);
  }
  const applied: AppliedMigration[] = [];
  for (const migration of MIGRATIONS) {
    if (done.has(migration.version)) continue;
    await migration.apply(executor, tables);
    await executor.exec(`INSERT INTO ${MIGRATIONS_TABLE} (version, name) SELECT {version:UInt32}, {name:String}`, {
      version: migration.version,
      name: migration.name,
    });
    applied.push({ version: migration.version, name: migration.name });
  }
  await finishTextIndex(executor, tables);
  return applied;
}
