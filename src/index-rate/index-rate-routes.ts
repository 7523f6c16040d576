import type { FastifyInstance } from 'fastify';
import { errors } from '../http/errors.js';
import { seesEveryLine } from '../query/access-scope.js';
import { type ServiceAuth, setterOf } from '../http/service-auth.js';
import { validate } from '../http/validation.js';
import { type IndexRateAlerts, configForRead, readConfig, sameChannels } from './config.js';

/**
 * /v1/config/index-rate, as Mezmo's: a singleton with GET and PUT only ("removing" it is PUT with
 * enabled false). Admins only, since its channels hold paging keys and webhook headers; PUT is audited.
 */
export async function indexRateRoutes(app: FastifyInstance, deps: { auth: ServiceAuth; alerts: IndexRateAlerts }): Promise<void> {
  app.get('/v1/config/index-rate', { config: { permission: 'admin' } }, async (request) => configForRead(await deps.alerts.get(await deps.auth.account(request))));

  app.put('/v1/config/index-rate', { config: { permission: 'admin', audit: 'index-rate' } }, async (request) => {
    const principal = await deps.auth.principal(request);
    // It counts every line of the organisation: a scoped admin would learn counts outside their scope.
    if (!seesEveryLine(principal.scope)) throw errors.scopeForbidden(principal.scope ?? [], 'the index-rate alert counts every line of the organisation, so only an unscoped admin sets where it sends');
    const config = readConfig(request.body, validate);
    const before = await deps.alerts.get(principal.account);
    // Whoever changes where it sends becomes its setter; a change of thresholds alone keeps the setter.
    config.setBy = sameChannels(before, config) && before.setBy !== undefined ? before.setBy : setterOf(principal);
    await deps.alerts.put(principal.account, config);
    return configForRead(config);
  });
}
