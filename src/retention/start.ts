import type { FastifyBaseLogger } from 'fastify';
import type { Accounts } from '../accounts/accounts.js';
import type { Subsystem } from '../lib/subsystem.js';
import type { LogStore } from '../store/log-store.js';
import { type RetentionDrop, scheduleRetention } from './enforce.js';
import { RetentionPolicy } from './policy.js';
import { retentionRoutes } from './retention-routes.js';
import type { ServiceAuth } from '../http/service-auth.js';

/**
 * Where several nodes share the configuration, or the CLI changes it, how often the policy is
 * reloaded, so a retention changed elsewhere applies here within a second.
 */
const RELOAD_MS = 1000;

export interface RetentionPolicyDeps {
  accounts: Accounts;
  auth: ServiceAuth;
  /** LOGSTEAD_RETENTION_DAYS. */
  defaultDays: number;
  log: FastifyBaseLogger;
}

/**
 * The retention policy: loaded now, then kept current (changes at this node at once, others' every
 * second); and /v1/config/retention, where an admin sets their organisation's.
 */
export async function startRetentionPolicy(deps: RetentionPolicyDeps): Promise<Subsystem & { policy: RetentionPolicy }> {
  const policy = await RetentionPolicy.load(deps.accounts, deps.defaultDays);
  const unsubscribe = deps.accounts.changes.subscribe(() => policy.reload());
  const reload = setInterval(() => policy.reload().catch((error) => deps.log.error({ err: error }, 'reloading retention failed')), RELOAD_MS);
  reload.unref();
  return {
    policy,
    routes: async (app) => {
      await app.register(retentionRoutes, { auth: deps.auth, accounts: deps.accounts, policy });
    },
    async close() {
      clearInterval(reload);
      unsubscribe();
    },
  };
}

export interface RetentionScheduleDeps {
  store: LogStore;
  policy: RetentionPolicy;
  /** LOGSTEAD_MAX_DISK_BYTES. */
  maxDiskBytes: number | undefined;
  /** Organisations whose lines must stay from a time on (archiving not yet done with them); undefined: none. */
  holds?: () => Promise<Map<string, number>>;
  /** Hears of every removal, for the metrics. */
  dropped: (drop: RetentionDrop) => void;
  log: FastifyBaseLogger;
}

/**
 * Frees the disk of what the policy no longer keeps: once now, before the server says it is ready,
 * then in the background (enforce.ts).
 */
export async function startRetentionSchedule(deps: RetentionScheduleDeps): Promise<Subsystem> {
  const schedule = scheduleRetention(
    deps.store,
    async () => ({ defaultDays: deps.policy.defaultDays, accounts: deps.policy.all(), maxDiskBytes: deps.maxDiskBytes, holds: await deps.holds?.() }),
    (drops) => {
      for (const drop of drops) {
        deps.log.info({ retention: drop }, `retention (${drop.reason}) removed ${drop.lines} lines`);
        deps.dropped(drop);
      }
    },
    (error) => deps.log.error({ err: error }, 'retention failed'),
  );
  await schedule.runNow();
  return { close: () => schedule.stop() };
}
