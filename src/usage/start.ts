import type { ServiceAuth } from '../http/service-auth.js';
import type { Subsystem } from '../lib/subsystem.js';
import type { RetentionPolicy } from '../retention/policy.js';
import type { LogStore } from '../store/log-store.js';
import { UsageReports } from './usage.js';
import { usageRoutes } from './usage-routes.js';
import { mezmoUsageRoutes } from './mezmo-usage-routes.js';

/** Usage: lines and bytes per day, top apps and hosts, and the retention in force, at GET /v1/usage (and `logstead org usage`). */
export function startUsage(deps: { store: LogStore; policy: RetentionPolicy; auth: ServiceAuth; now?: () => number }): Subsystem & { usage: UsageReports } {
  const usage = new UsageReports(deps.store, (account) => deps.policy.inForce(account));
  return {
    usage,
    routes: async (app) => {
      await app.register(usageRoutes, { auth: deps.auth, usage });
      await app.register(mezmoUsageRoutes, { auth: deps.auth, store: deps.store, policy: deps.policy, now: deps.now ?? Date.now });
    },
    close: async () => {},
  };
}
