import path from 'node:path';
import type { Settings } from '../settings.js';
import { openChdbExecutor } from './chdb-executor.js';
import { openClickHouseExecutor } from './clickhouse-executor.js';
import type { SqlExecutor } from './executor.js';

/** Where the embedded engine keeps its files, under the data directory. */
export const EMBEDDED_LOGS_DIR = 'clickhouse';

/** The log engine the settings choose: a ClickHouse server (LOGSTEAD_CLICKHOUSE_URL) or embedded chDB. */
export function openLogExecutor(
  settings: Pick<Settings, 'dataDir' | 'clickhouseUrl' | 'clickhouseCluster'> & { engineCacheBytes?: number },
): Promise<SqlExecutor> {
  if (settings.clickhouseUrl) return openClickHouseExecutor({ url: settings.clickhouseUrl, cluster: settings.clickhouseCluster });
  return openChdbExecutor(path.join(settings.dataDir, EMBEDDED_LOGS_DIR), { cacheBytes: settings.engineCacheBytes });
}
