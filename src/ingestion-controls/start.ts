import type { FastifyBaseLogger } from 'fastify';
import type { ServiceAuth } from '../http/service-auth.js';
import type { Subsystem } from '../lib/subsystem.js';
import type { ConfigKysely } from '../repository/open.js';
import { ExclusionRules } from './exclusion-rules.js';
import { IngestionGate } from './gate.js';
import { ingestionControlRoutes } from './ingestion-control-routes.js';
import { IngestionSuspension } from './suspension.js';

/**
 * How often a node rereads suspensions and exclusion rules, and adds the lines it excluded to the
 * counts: a change made at another node applies here within this (the brief's 1 s, with room for
 * the read itself).
 */
const RELOAD_MS = 500;

export interface IngestionControlsDeps {
  db: ConfigKysely;
  auth: ServiceAuth;
  log: FastifyBaseLogger;
  now?: () => number;
}

export interface IngestionControls extends Subsystem {
  /** What ingest's intake asks of every request. */
  gate: IngestionGate;
  exclusions: ExclusionRules;
  suspension: IngestionSuspension;
}

/** Exclusion rules and ingestion suspension: their routes, and the gate the ingest path asks. */
export async function startIngestionControls(deps: IngestionControlsDeps): Promise<IngestionControls> {
  const now = deps.now ?? Date.now;
  const exclusions = new ExclusionRules(deps.db);
  const suspension = new IngestionSuspension(deps.db, now);
  const gate = new IngestionGate(exclusions, suspension, now);
  await gate.reload();
  let running: Promise<void> | undefined;
  const cycle = () => Promise.all([gate.reload(), gate.flush()]).then(() => undefined);
  const timer = setInterval(() => {
    if (running) return; // a slow database: the next tick catches up
    running = cycle()
      .catch((error) => deps.log.error({ err: error }, 'reloading ingestion controls failed'))
      .finally(() => (running = undefined));
  }, RELOAD_MS);
  timer.unref();
  return {
    gate,
    exclusions,
    suspension,
    routes: async (app) => {
      await app.register(ingestionControlRoutes, { auth: deps.auth, exclusions, suspension, changed: () => gate.reload(), now });
    },
    async close() {
      clearInterval(timer);
      await running;
      await gate.flush().catch((error) => deps.log.error({ err: error }, 'counting excluded lines failed'));
    },
  };
}
