import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../http/errors.js';
import type { Metrics } from './registry.js';

// Digests have one length whatever was sent, so the comparison takes the same time for any guess.
const digest = (value: string) => createHash('sha256').update(value).digest();

/** The key a scraper presented: `?key=` or `Authorization: Bearer`. */
function presentedKey(request: FastifyRequest): string | undefined {
  const query = (request.query as Record<string, unknown>).key;
  if (typeof query === 'string') return query;
  const header = request.headers.authorization;
  const match = header ? /^bearer\s+(.+)$/i.exec(header.trim()) : null;
  return match?.[1];
}

/**
 * GET /metrics in the Prometheus text format. Open by default, as Loki's and VictoriaLogs' are
 * (it reveals counts and timings, not lines, names or keys); with LOGSTEAD_METRICS_KEY set, a
 * scraper must present that key.
 */
export async function metricsRoutes(app: FastifyInstance, deps: { metrics: Metrics; key: string | undefined }): Promise<void> {
  const expected = deps.key === undefined ? undefined : digest(deps.key);
  app.get('/metrics', { config: { permission: 'public' } }, async (request, reply) => {
    if (expected) {
      const key = presentedKey(request);
      if (key === undefined || !timingSafeEqual(digest(key), expected)) throw errors.metricsUnauthorized();
    }
    const text = await deps.metrics.registry.metrics();
    return reply.type(deps.metrics.registry.contentType).send(text);
  });
}
