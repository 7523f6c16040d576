import type { Subsystem } from '../lib/subsystem.js';
import type { Settings } from '../settings.js';
import type { SqlExecutor } from './executor.js';
import { LogStore } from './log-store.js';
import { openLogExecutor } from './open-executor.js';

export interface StoreSubsystem extends Subsystem {
  store: LogStore;
  /** The engine itself, for what only a backup does (a snapshot of its files). */
  executor: SqlExecutor;
}

/**
 * The log store: the embedded engine in the data directory, or a ClickHouse server or cluster
 * (LOGSTEAD_CLICKHOUSE_URL), brought to this build's schema. `keptFrom` is each organisation's
 * retention: reads never return older lines.
 */
export async function startStore(deps: {
  settings: Pick<Settings, 'dataDir' | 'clickhouseUrl' | 'clickhouseCluster'>;
  keptFrom: (account: string) => number;
}): Promise<StoreSubsystem> {
  const executor = await openLogExecutor(deps.settings);
  try {
    const store = await LogStore.open(executor, { retainedFrom: deps.keptFrom, cluster: deps.settings.clickhouseCluster });
    return { store, executor, close: () => executor.close() };
  } catch (error) {
    await executor.close();
    throw error;
  }
}
