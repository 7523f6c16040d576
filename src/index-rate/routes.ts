import type { FastifyInstance } from 'fastify';
import type { ServiceAuth } from '../http/service-auth.js';
import { validate } from '../http/validation.js';
import { type IndexRateAlerts, configForRead, readConfig } from './config.js';

/**
 * /v1/config/index-rate, as Mezmo's: a singleton with GET and PUT only ("removing" it is PUT with
 * enabled false). Admins only, since its channels hold paging keys and webhook headers; PUT is audited.
 */
export async function indexRateRoutes(app: FastifyInstance, deps: { auth: ServiceAuth; alerts: IndexRateAlerts }): Promise<void> {
  app.get('/v1/config/index-rate', { config: { permission: 'admin' } }, async (request) => configForRead(await deps.alerts.get(await deps.auth.account(request))));

  app.put('/v1/config/index-rate', { config: { permission: 'admin', audit: 'index-rate' } }, async (request) => {
    const account = await deps.auth.account(request);
    const config = readConfig(request.body, validate);
    await deps.alerts.put(account, config);
    return configForRead(config);
  });
}
