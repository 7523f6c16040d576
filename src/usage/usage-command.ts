import { EngineInUse, askServerForUsage, askServerOrDoItOffline } from '../http/control-socket.js';
import type { Settings } from '../settings.js';
import { LogStore } from '../store/log-store.js';
import { openLogExecutor } from '../store/open-executor.js';
import { retainedFrom } from '../retention/policy.js';
import { type RetentionInForce, type UsageReport, UsageReports } from './usage.js';

/**
 * `logstead org usage`: the running server answers through its control socket (it owns the
 * embedded engine, which admits one process per data directory); with no server, this process
 * opens the store the settings name (the embedded one, or the ClickHouse server every node shares)
 * and counts the same way. `retention` is the organisation's, read from the configuration.
 */
export async function usageOf(
  settings: Pick<Settings, 'dataDir' | 'clickhouseUrl' | 'clickhouseCluster'>,
  account: string,
  range: { from?: string; to?: string },
  retention: RetentionInForce,
): Promise<UsageReport> {
  const { dataDir } = settings;
  const outcome = await askServerOrDoItOffline(() => askServerForUsage(dataDir, account, range), () => countOffline(settings, account, range, retention));
  if ('offline' in outcome) return outcome.offline;
  const { answer } = outcome;
  if (answer.status !== 200) throw new Error(String(answer.body?.error ?? `the server answered ${answer.status}`));
  return answer.body as UsageReport;
}

/** Counts with this process's own store, when no server owns it. */
async function countOffline(
  settings: Pick<Settings, 'dataDir' | 'clickhouseUrl' | 'clickhouseCluster'>,
  account: string,
  range: { from?: string; to?: string },
  retention: RetentionInForce,
): Promise<UsageReport> {
  let executor;
  try {
    executor = await openLogExecutor(settings);
  } catch (error) {
    if (settings.clickhouseUrl) throw error; // a server's store is never locked by a process
    throw new EngineInUse(settings.dataDir, 'ask again', error);
  }
  try {
    const store = await LogStore.open(executor, { retainedFrom: () => retainedFrom(retention.retentionDays, Date.now()), cluster: settings.clickhouseCluster });
    const usage = new UsageReports(store, () => retention);
    return await usage.report(account, range, null); // the operator sees everything
  } finally {
    await executor.close();
  }
}
