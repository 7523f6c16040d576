import type { FastifyBaseLogger } from 'fastify';
import type { ServiceAuth } from '../http/service-auth.js';
import type { Subsystem } from '../lib/subsystem.js';
import type { Outbox } from '../notify/outbox.js';
import type { ConfigKysely } from '../repository/open.js';
import type { LogStore } from '../store/log-store.js';
import { IndexRateAlerts } from './config.js';
import { IndexRateMonitor } from './monitor.js';
import { indexRateRoutes } from './index-rate-routes.js';
import type { SetterDirectory } from '../views/setters.js';

/** How often each node checks the index rates: a period passing its limit is noticed within this. */
const CHECK_MS = 10_000;

export interface IndexRateDeps {
  db: ConfigKysely;
  auth: ServiceAuth;
  store: LogStore;
  outbox: Outbox;
  messageSettings: () => { publicUrl: string; pagingUrl: string };
  now: () => number;
  log: FastifyBaseLogger;
  /** Where the alert's setter is read (the members). */
  setters: SetterDirectory;
}

/** The index-rate alert: its route, and the monitor that fires it (monitor.ts). */
export function startIndexRate(deps: IndexRateDeps): Subsystem & { monitor: IndexRateMonitor } {
  const alerts = new IndexRateAlerts(deps.db);
  const monitor = new IndexRateMonitor({ ...deps, alerts });
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = monitor
      .tick()
      .catch((error) => deps.log.error({ err: error }, 'checking index rates failed'))
      .finally(() => (running = undefined));
  }, CHECK_MS);
  timer.unref();
  return {
    monitor,
    routes: async (app) => {
      await app.register(indexRateRoutes, { auth: deps.auth, alerts });
    },
    async close() {
      clearInterval(timer);
      await running;
    },
  };
}
