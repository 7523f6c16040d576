import type { FastifyBaseLogger } from 'fastify';
import { Gauge } from 'prom-client';
import type { ServiceAuth } from '../http/service-auth.js';
import type { SecretBox } from '../repository/secret-box.js';
import type { Subsystem } from '../lib/subsystem.js';
import type { Metrics } from '../metrics/registry.js';
import type { ConfigKysely } from '../repository/open.js';
import type { ArchiveSettings } from '../settings.js';
import type { LogStore } from '../store/log-store.js';
import { ArchiveConfigs } from './archive-config.js';
import { ArchiveFiles } from './archive-files.js';
import { archiveRoutes } from './archive-routes.js';
import { restoreRoutes } from './restore-routes.js';
import { Archiver } from './archiver.js';
import { ArchiveSearch } from './archive-search.js';
import { Restores } from './restores.js';

export interface ArchiveDeps {
  settings: ArchiveSettings;
  /** Whether secrets may be sealed here: not on a shared configuration database without LOGSTEAD_SECRET_KEY. */
  canSeal: boolean;
  db: ConfigKysely;
  nodeSlot: number;
  box: SecretBox;
  store: LogStore;
  auth: ServiceAuth;
  metrics: Metrics;
  log: FastifyBaseLogger;
}

/**
 * Archiving: the bucket configuration (/v1/config/archiving), the archiver that writes each
 * organisation's closed hours to it on whichever node claims them, GET /v1/archive/status, and
 * restores, whose loop carries on the restores of nodes that went quiet.
 */
export async function startArchive(deps: ArchiveDeps): Promise<Subsystem & { files: ArchiveFiles; configs: ArchiveConfigs; search: ArchiveSearch; holds: (keptFrom: (account: string) => number) => Promise<Map<string, number>> }> {
  const configs = new ArchiveConfigs(deps.db, deps.box);
  const files = new ArchiveFiles(deps.db, deps.nodeSlot);
  const { metrics } = deps;
  const archiver = new Archiver(
    configs,
    files,
    deps.store,
    {
      delayMs: deps.settings.delayMinutes * 60_000,
      intervalMs: deps.settings.intervalSeconds * 1000,
      settleMs: deps.settings.settleSeconds * 1000,
      allowPrivate: deps.settings.allowPrivate,
      recorded: (outcome) => {
        if ('failed' in outcome) return metrics.archiveFailures.inc();
        metrics.archiveFiles.inc();
        metrics.archiveLines.inc(outcome.lines);
        metrics.archiveBytes.inc(outcome.bytes);
      },
    },
    deps.log,
  );
  let lag = 0;
  new Gauge({
    name: 'logstead_archive_lag_seconds',
    help: 'How long the oldest archive file not yet written has waited (0 when none waits): archiving falling behind, or a bucket failing.',
    registers: [metrics.registry],
    async collect() {
      try {
        const { oldestCreatedAt } = await files.pendingSummary();
        lag = oldestCreatedAt === null ? 0 : Math.max(0, (Date.now() - oldestCreatedAt) / 1000);
      } catch {
        // The database did not answer (closing): the last value stands.
      }
      this.set(lag);
    },
  });
  const search = new ArchiveSearch(deps.db, configs, deps.store, deps.settings.allowPrivate);
  const restores = new Restores(deps.db, search, deps.store, deps.log, { stepLines: deps.settings.restoreStepLines });
  archiver.start();
  restores.start();
  const holdMs = deps.settings.holdDays * 86_400_000;
  /**
   * What retention must keep for archiving: each archiving organisation's lines from its oldest
   * unarchived hour, but at most LOGSTEAD_ARCHIVE_HOLD_DAYS past its retention; past that the
   * lines go, and the log says whose and from when.
   */
  async function holds(keptFrom: (account: string) => number): Promise<Map<string, number>> {
    const result = new Map<string, number>();
    for (const [account, from] of await files.unarchivedFrom()) {
      const kept = keptFrom(account);
      if (from >= kept) continue;
      const limit = kept - holdMs;
      if (from < limit) {
        deps.log.warn({ account, unarchivedFrom: new Date(from).toISOString() }, `retention drops lines not yet archived: archiving is more than ${deps.settings.holdDays} days (LOGSTEAD_ARCHIVE_HOLD_DAYS) behind retention`);
      }
      result.set(account, Math.max(from, limit));
    }
    return result;
  }
  return {
    files,
    configs,
    search,
    holds,
    routes: async (app) => {
      await app.register(archiveRoutes, { auth: deps.auth, configs, allowPrivate: deps.settings.allowPrivate, canSeal: deps.canSeal });
      await app.register(restoreRoutes, { auth: deps.auth, configs, files, restores });
    },
    async close() {
      await archiver.stop();
      await restores.stop();
    },
  };
}
