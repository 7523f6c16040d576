import type { FastifyBaseLogger } from 'fastify';
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
 * How long a starting server waits for the embedded engine while another process holds it: a
 * `logstead backup` or `org usage` that found no server running and opened the engine itself
 * (a restart and a nightly job can cross). Its work takes seconds; then the lock is free.
 */
const ENGINE_WAIT_MS = 60_000;
const ENGINE_RETRY_MS = 500;

async function openEmbeddedWaiting(settings: Pick<Settings, 'dataDir' | 'clickhouseUrl' | 'clickhouseCluster'>, log: FastifyBaseLogger): Promise<SqlExecutor> {
  const deadline = Date.now() + ENGINE_WAIT_MS;
  for (let warned = false; ; warned = true) {
    try {
      return await openLogExecutor(settings);
    } catch (error) {
      if (Date.now() >= deadline) throw error;
      if (!warned) log.warn(`the log store in ${settings.dataDir} could not be opened (${(error as Error).message}); if another process holds it (a backup taken while no server ran), waiting up to ${ENGINE_WAIT_MS / 1000} s`);
    }
    await new Promise((resolve) => setTimeout(resolve, ENGINE_RETRY_MS));
  }
}

/**
 * The log store: the embedded engine in the data directory, or a ClickHouse server or cluster
 * (LOGSTEAD_CLICKHOUSE_URL), brought to this build's schema. `keptFrom` is each organisation's
 * retention: reads never return older lines.
 */
export async function startStore(deps: {
  settings: Pick<Settings, 'dataDir' | 'clickhouseUrl' | 'clickhouseCluster'>;
  keptFrom: (account: string) => number;
  log: FastifyBaseLogger;
}): Promise<StoreSubsystem> {
  const executor = deps.settings.clickhouseUrl ? await openLogExecutor(deps.settings) : await openEmbeddedWaiting(deps.settings, deps.log);
  try {
    const store = await LogStore.open(executor, { retainedFrom: deps.keptFrom, cluster: deps.settings.clickhouseCluster });
    return { store, executor, close: () => executor.close() };
  } catch (error) {
    await executor.close();
    throw error;
  }
}
