import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';

/**
 * Whether a request is an Elasticsearch client's rather than a browser's: it carries the official
 * clients' `x-elastic-client-meta` header, or accepts `application/vnd.elasticsearch+json`, or
 * sends Basic or ApiKey credentials without a browser's `text/html` accept. Only such requests
 * reach `GET /`, `HEAD /` and `HEAD /{index}` of this API; everyone else gets the viewer there.
 */
export function isElasticClient(headers: IncomingHttpHeaders): boolean {
  if (headers['x-elastic-client-meta'] !== undefined) return true;
  const accept = String(headers.accept ?? '').toLowerCase();
  if (accept.includes('application/vnd.elasticsearch+json')) return true;
  if (accept.includes('text/html')) return false;
  return /^\s*(basic|apikey)\s/i.test(String(headers.authorization ?? ''));
}

/** The route constraint that says so: a route with `constraints: ELASTIC_CLIENT` answers only Elasticsearch clients. */
const STRATEGY = 'elasticClient';
export const ELASTIC_CLIENT = { [STRATEGY]: 'yes' };

export function addElasticClientConstraint(app: FastifyInstance): void {
  if (app.hasConstraintStrategy(STRATEGY)) return;
  app.addConstraintStrategy({
    name: STRATEGY,
    storage() {
      const handlers = new Map<string, unknown>();
      return { get: (value: string) => handlers.get(value) ?? null, set: (value: string, handler: unknown) => void handlers.set(value, handler) };
    },
    // A request that is not a client's derives nothing, and gets the unconstrained route (the viewer).
    deriveConstraint: (request: { headers: IncomingHttpHeaders }) => (isElasticClient(request.headers) ? 'yes' : undefined),
    mustMatchWhenDerived: false,
  } as Parameters<FastifyInstance['addConstraintStrategy']>[0]);
}
