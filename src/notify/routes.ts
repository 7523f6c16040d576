import type { FastifyInstance } from 'fastify';
import type { ServiceAuth } from '../http/service-auth.js';
import { type QueryParams, countParam } from '../search/filter-params.js';
import type { Outbox } from './outbox.js';

/** GET /v1/alerts/deliveries: an organisation's notification deliveries and every attempt. */
export async function deliveryLogRoute(app: FastifyInstance, deps: { auth: ServiceAuth; outbox: Outbox }): Promise<void> {
  app.get('/v1/alerts/deliveries', async (request) => {
    const account = deps.auth.account(request);
    return deps.outbox.log(account, countParam(request.query as QueryParams, 'limit', 100, 1000));
  });
}
