import fs from 'node:fs';
import path from 'node:path';
import { serverIsRunning } from '../http/control-socket.js';
import { CONFIG_FILE, type ConfigDatabase, openConfigDatabase } from '../repository/open.js';
import { type Settings, loadSettings } from '../settings.js';
import { openChdbExecutor } from '../store/chdb-executor.js';
import { openClickHouseExecutor } from '../store/clickhouse-executor.js';
import type { SqlExecutor } from '../store/executor.js';
import { LogStore } from '../store/log-store.js';
import { EMBEDDED_LOGS_DIR } from '../store/open-executor.js';
import { logTables } from '../store/tables.js';
import { TargetInUse, copyConfiguration, countAccounts, targetInUseMessage } from './copy-configuration.js';
import { type LogCopyProgress, copyLogLines } from './copy-log-lines.js';

/**
 * `logstead copy-to-cluster`: moves a stopped embedded installation (its data directory) into the
 * shared stores of a cluster, a PostgreSQL configuration database and a ClickHouse server.
 *
 * The lines go first and the configuration last, in one transaction: the target's organisations
 * appear only once everything is there, so nodes started on the target early, or a copy run again
 * after a finished one, are refused (the target has organisations), while a copy run again after
 * a failure carries on where the lines stopped (copy-log-lines.ts) and then copies the
 * configuration.
 */

export interface CopyToClusterOptions {
  /** The embedded installation's data directory. */
  dataDir: string;
  /** postgres:// URL of the cluster's configuration database. */
  databaseUrl: string;
  /** http(s):// URL of the cluster's ClickHouse database. */
  clickhouseUrl: string;
  /** The ClickHouse cluster the log tables live on (ON CLUSTER, Replicated + Distributed). */
  clickhouseCluster?: string;
  /** Lines per insert. */
  batchLines?: number;
  /** Progress messages, for a person watching (stderr in the CLI). */
  report?: (message: string) => void;
  /** Called after each batch of lines. */
  onBatch?: (progress: LogCopyProgress) => void | Promise<void>;
}

export interface CopySummary {
  organisations: number;
  keys: number;
  views: number;
  lines: number;
}

export const DEFAULT_BATCH_LINES = 50_000;

/** The copy cannot start, or would overwrite something: nothing was written. */
export class CopyRefused extends Error {}

/**
 * The command's URLs, checked as the same settings would be at a node's start, with errors naming
 * the options rather than the variables (they never repeat a URL: it carries a password).
 */
export function copyTargets(flags: { databaseUrl?: string; clickhouseUrl?: string; clickhouseCluster?: string }): Pick<Settings, 'databaseUrl' | 'clickhouseUrl' | 'clickhouseCluster'> {
  if (!flags.databaseUrl || !flags.clickhouseUrl) throw new CopyRefused('copy-to-cluster needs both --database-url and --clickhouse-url.');
  const names: Array<[string, string]> = [
    ['LOGSTEAD_DATABASE_URL', '--database-url'],
    ['LOGSTEAD_CLICKHOUSE_URL', '--clickhouse-url'],
    ['LOGSTEAD_CLICKHOUSE_CLUSTER', '--clickhouse-cluster'],
  ];
  try {
    const { databaseUrl, clickhouseUrl, clickhouseCluster } = loadSettings({
      LOGSTEAD_DATABASE_URL: flags.databaseUrl,
      LOGSTEAD_CLICKHOUSE_URL: flags.clickhouseUrl,
      LOGSTEAD_CLICKHOUSE_CLUSTER: flags.clickhouseCluster,
    });
    return { databaseUrl, clickhouseUrl, clickhouseCluster };
  } catch (error) {
    throw new CopyRefused(names.reduce((message, [variable, flag]) => message.replaceAll(variable, flag), (error as Error).message));
  }
}

export async function copyToCluster(options: CopyToClusterOptions): Promise<CopySummary> {
  const report = options.report ?? (() => {});
  const { dataDir } = options;
  if (!fs.existsSync(path.join(dataDir, CONFIG_FILE))) {
    throw new CopyRefused(`No Logstead data directory at ${dataDir} (no ${CONFIG_FILE} there). Set LOGSTEAD_DATA_DIR to the directory the embedded server used.`);
  }
  if (await serverIsRunning(dataDir)) throw new CopyRefused(`A Logstead server is running on ${dataDir}. Stop it, then copy.`);
  const logsDir = path.join(dataDir, EMBEDDED_LOGS_DIR);
  report(`Copying ${dataDir} into the cluster's stores`);

  const opened: Array<{ close(): Promise<void> }> = [];
  try {
    // The source's engine first: its lock keeps a server from starting on the directory meanwhile.
    let sourceLogs: SqlExecutor | undefined;
    if (fs.existsSync(logsDir)) {
      try {
        sourceLogs = await openChdbExecutor(logsDir);
      } catch (error) {
        throw new CopyRefused(`The log store in ${dataDir} is in use by another process (a Logstead server?); stop it, then copy (${(error as Error).message}).`);
      }
      opened.push(sourceLogs);
    }
    const { database: sourceConfig } = await openConfigDatabase({ dataDir });
    opened.push(sourceConfig);
    const targetConfig: ConfigDatabase = (await openConfigDatabase({ dataDir, databaseUrl: options.databaseUrl })).database;
    opened.push(targetConfig);
    const accounts = await countAccounts(targetConfig.db);
    if (accounts > 0) throw new CopyRefused(targetInUseMessage(accounts));

    const targetLogs = await openClickHouseExecutor({ url: options.clickhouseUrl, cluster: options.clickhouseCluster });
    opened.push(targetLogs);
    const targetTables = logTables(options.clickhouseCluster);
    const targetStore = await LogStore.open(targetLogs, { cluster: options.clickhouseCluster });

    let lines = 0;
    if (sourceLogs) {
      const sourceTables = logTables();
      // Brings an older data directory's table up to this build's columns, as a start would.
      await LogStore.open(sourceLogs);
      const copied = await copyLogLines({ executor: sourceLogs, tables: sourceTables }, { executor: targetLogs, tables: targetTables, store: targetStore }, {
        batchLines: options.batchLines ?? DEFAULT_BATCH_LINES,
        onBatch: async (progress) => {
          report(`lines: ${progress.done} of ${progress.total}${progress.alreadyThere > 0 ? ` (${progress.alreadyThere} already there from an earlier copy)` : ''}`);
          await options.onBatch?.(progress);
        },
      });
      lines = copied.done;
    }
    report(`lines: all ${lines} copied; copying the configuration`);

    let rows;
    try {
      rows = await copyConfiguration(sourceConfig.db, targetConfig);
    } catch (error) {
      if (error instanceof TargetInUse) throw new CopyRefused(error.message);
      throw error;
    }
    report(`configuration: ${Object.entries(rows).map(([table, count]) => `${count} ${table}`).join(', ')}`);
    return { organisations: rows.accounts, keys: rows.api_keys, views: rows.views, lines };
  } finally {
    for (const each of opened.reverse()) await each.close();
  }
}
