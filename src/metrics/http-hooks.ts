import type { FastifyInstance, FastifyRequest } from 'fastify';
import { INGEST_PATHS } from '../ingest/mezmo/ingest-routes.js';
import { QUERY_ROUTES, type Metrics } from './registry.js';
import { rejectionReason } from './rejection-reasons.js';

const INGEST_ROUTES = new Set<string>(INGEST_PATHS);
const MEASURED_QUERY_ROUTES = new Set<string>(QUERY_ROUTES);

/**
 * Records what the HTTP layer alone knows: ingest answers that were not 200 and why, the body bytes
 * the ingest routes read, and how long read requests took. Added to the root instance before any
 * route, so the hooks run for every route without the routes knowing. Routes are known by their
 * pattern (request.routeOptions.url), never by the URL a client sent.
 */
export function recordHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  const failures = new WeakMap<FastifyRequest, Error>();
  const isIngest = (request: FastifyRequest) => request.method === 'POST' && INGEST_ROUTES.has(request.routeOptions.url ?? '');

  app.addHook('preParsing', async (request, _reply, payload) => {
    if (!isIngest(request)) return payload;
    // Paused first, so that listening does not start the flow: the body parser resumes it once its
    // own listener is in place, and no chunk passes before both hear it. Not a piped counting
    // stream: its backpressure would stall a refused upload that Node otherwise reads and drops.
    payload.pause();
    payload.on('data', (chunk: Buffer) => metrics.ingestRequestBytes.inc(chunk.length));
    return payload;
  });

  // The error an answer came from, which tells its 503s apart; onError hooks hear it first.
  app.addHook('onError', async (request, _reply, error) => {
    failures.set(request, error);
  });

  app.addHook('onResponse', async (request, reply) => {
    if (isIngest(request)) {
      metrics.ingestRequests.inc();
      if (reply.statusCode === 200) return;
      const reason = rejectionReason(reply.statusCode, failures.get(request));
      metrics.ingestRejections.inc({ reason });
      if (reason === 'overloaded') metrics.ingestShed.inc();
      return;
    }
    const route = request.routeOptions.url;
    if (route !== undefined && MEASURED_QUERY_ROUTES.has(route)) {
      metrics.queryDuration.observe({ route }, reply.elapsedTime / 1000);
    }
  });
}
