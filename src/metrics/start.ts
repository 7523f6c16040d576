import type { Subsystem } from '../lib/subsystem.js';
import { metricsRoutes } from './metrics-routes.js';
import { type MetricSources, type Metrics, watchSources } from './registry.js';

/**
 * GET /metrics, with the gauges read at scrape time from the subsystems that hold them. The
 * registry itself (registry.ts) is made before every subsystem, which count into it as they work.
 */
export function startMetrics(deps: { metrics: Metrics; key: string | undefined; sources: MetricSources }): Subsystem {
  watchSources(deps.metrics, deps.sources);
  return {
    routes: async (app) => {
      await app.register(metricsRoutes, { metrics: deps.metrics, key: deps.key });
    },
    close: async () => {},
  };
}
