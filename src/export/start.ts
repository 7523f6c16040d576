import type { FastifyBaseLogger } from 'fastify';
import type { Accounts } from '../accounts/accounts.js';
import type { ServiceAuth } from '../http/service-auth.js';
import type { Subsystem } from '../lib/subsystem.js';
import type { Outbox } from '../notify/outbox.js';
import type { ConfigKysely } from '../repository/open.js';
import type { Settings } from '../settings.js';
import type { LogStore } from '../store/log-store.js';
import { EmailExports } from './email-export.js';
import { ExportFiles } from './export-files.js';
import { type ExportDeps as ExportRoutesDeps, exportRoutes } from './export-routes.js';

/** Expired export files are removed this often (and once at start). */
const SWEEP_MS = 3_600_000;

export interface ExportDeps {
  settings: Pick<Settings, 'dataDir' | 'exportLinkHours'>;
  db: ConfigKysely;
  store: LogStore;
  outbox: Outbox;
  /** Whether e-mail can be sent here; without it an e-mailed export is refused. */
  canEmail: boolean;
  /** `source=archive` reads here. */
  archive: ExportRoutesDeps['archive'];
  accounts: Accounts;
  auth: ServiceAuth;
  /** The address download links point at. */
  publicUrl: () => string;
  log: FastifyBaseLogger;
  now: () => number;
}

/**
 * Export: GET /v1/export (streamed JSON Lines) and /v2/export (pages), and export by e-mail with a
 * signed, expiring download link to a file kept in the configuration database (email-export.ts).
 */
export async function startExport(deps: ExportDeps): Promise<Subsystem> {
  const emailExports = await EmailExports.open(deps.store, deps.outbox, new ExportFiles(deps.db), {
    dataDir: deps.settings.dataDir,
    linkHours: deps.settings.exportLinkHours,
    publicUrl: deps.publicUrl,
    now: deps.now,
    keyIsLive: (keyId, openedAt) => deps.auth.credentialIsLive(keyId, openedAt),
  });
  await emailExports.sweep();
  const sweeper = setInterval(() => emailExports.sweep().catch((error) => deps.log.error({ err: error }, 'removing expired exports failed')), SWEEP_MS);
  sweeper.unref();
  return {
    routes: async (app) => {
      await app.register(exportRoutes, { auth: deps.auth, store: deps.store, emailExports, canEmail: deps.canEmail, archive: deps.archive });
    },
    async close() {
      clearInterval(sweeper);
      await emailExports.drained();
    },
  };
}
