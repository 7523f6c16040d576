import { askServerForUsage } from '../backup/control-socket.js';
import type { Settings } from '../settings.js';
import { LogStore } from '../store/log-store.js';
import { openLogExecutor } from '../store/open-executor.js';
import { retainedFrom } from '../retention/enforce.js';
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
  const answer = await askServerForUsage(dataDir, account, range);
  if (answer.running) {
    if (answer.status !== 200) throw new Error(String(answer.body?.error ?? `the server answered ${answer.status}`));
    return answer.body as UsageReport;
  }
  let executor;
  try {
    executor = await openLogExecutor(settings);
  } catch (error) {
    throw new Error(
      `The log store in ${dataDir} is in use, but no server answers on its control socket: if a Logstead server runs there (and logged that its control socket could not be opened), stop it and ask again (${(error as Error).message}).`,
    );
  }
  try {
    const store = await LogStore.open(executor, { retainedFrom: () => retainedFrom(retention.retentionDays, Date.now()), cluster: settings.clickhouseCluster });
    const usage = new UsageReports(store, () => retention);
    return await usage.report(account, range);
  } finally {
    await executor.close();
  }
}
