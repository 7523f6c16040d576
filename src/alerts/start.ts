import type { FastifyBaseLogger } from 'fastify';
import type { ServiceAuth } from '../http/service-auth.js';
import type { AfterStore } from '../ingest/after-store.js';
import type { Subsystem } from '../lib/subsystem.js';
import type { NotifySubsystem } from '../notify/start.js';
import type { ConfigKysely } from '../repository/open.js';
import type { LogStore } from '../store/log-store.js';
import type { Presets } from '../views/presets.js';
import type { Views } from '../views/views.js';
import type { SetterDirectory } from '../views/setters.js';
import { AlertState } from './alert-state.js';
import { backtestRoutes } from './backtest-routes.js';
import { type AlertActivity, AlertEvaluator } from './evaluator.js';
import { AlertRules } from './rules.js';

/**
 * Where several nodes share the configuration, how often each reloads the alert rules, so a view
 * changed at another node applies here within a second. (A change at this node applies at once.)
 */
const SHARED_RELOAD_MS = 1000;
/** Alert windows close on this tick. */
const WINDOW_TICK_MS = 1000;

export interface AlertsDeps {
  db: ConfigKysely;
  /** True when other nodes share the configuration (and so the alert windows). */
  shared: boolean;
  views: Views;
  presets: Presets;
  /** Where channels' setters are read (the members), whose scopes bound what each channel carries. */
  setters: SetterDirectory;
  store: LogStore;
  afterStore: AfterStore;
  notify: Pick<NotifySubsystem, 'enqueueAlert' | 'outbox'>;
  /** Hears of evaluations and fires, for the metrics. */
  activity: AlertActivity;
  auth: ServiceAuth;
  log: FastifyBaseLogger;
  /** The clock alert windows follow; tests inject one. */
  now: () => number;
}

/**
 * Alerting: views' and preset alerts' rules, counted over the lines each request stores (before it
 * is acknowledged) and over windows that close on a clock. A fire and its messages are recorded in
 * one transaction; notify delivers them. Also POST /v1/alerts/backtest.
 */
export async function startAlerts(deps: AlertsDeps): Promise<Subsystem & { evaluator: AlertEvaluator }> {
  const rules = new AlertRules(deps.views, deps.presets, deps.setters);
  await rules.load();
  const evaluator = new AlertEvaluator(new AlertState(deps.db), rules, (event, trx) => deps.notify.enqueueAlert(event, trx), deps.now, {
    ...deps.activity,
    // Called once a fire's transaction has committed: its deliveries can be claimed now.
    fired: (kind) => {
      deps.activity.fired(kind);
      deps.notify.outbox.kick();
    },
  }, deps.shared);
  const unsubscribe = deps.afterStore.subscribe({
    name: 'alert evaluation',
    wantsRows: (account) => evaluator.watches(account),
    stored: (account, batch) => (batch.rows ? evaluator.observe(account, batch.rows) : undefined),
  });

  let ticking: Promise<void> | undefined;
  const windowClock = setInterval(() => {
    if (ticking) return; // a slow database: the next second catches up
    ticking = evaluator
      .tick()
      .then(() => undefined)
      .catch((error) => deps.log.error({ err: error }, 'closing alert windows failed'))
      .finally(() => (ticking = undefined));
  }, WINDOW_TICK_MS);
  const reload = deps.shared
    ? setInterval(() => rules.load().catch((error) => deps.log.error({ err: error }, 'reloading alert rules failed')), SHARED_RELOAD_MS)
    : undefined;
  reload?.unref();

  return {
    evaluator,
    routes: async (app) => {
      await app.register(backtestRoutes, { auth: deps.auth, store: deps.store, now: deps.now });
    },
    async close() {
      clearInterval(windowClock);
      clearInterval(reload);
      unsubscribe();
      // What the clocks started finishes before the database closes under it.
      await ticking;
      await rules.stop();
    },
  };
}
