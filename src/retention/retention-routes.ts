import Joi from 'joi';
import type { FastifyInstance } from 'fastify';
import { type Accounts, MAX_RETENTION_DAYS } from '../accounts/accounts.js';
import type { ServiceAuth } from '../http/service-auth.js';
import { validate } from '../http/validation.js';
import type { RetentionPolicy } from './policy.js';

const retentionSchema = Joi.object({ days: Joi.number().integer().min(1).max(MAX_RETENTION_DAYS).allow(null).required() });

/**
 * /v1/config/retention (a Logstead addition): how long the organisation's lines are kept. GET
 * answers the retention in force; PUT {days} sets the organisation's own, and {days: null}
 * returns it to the server's default (LOGSTEAD_RETENTION_DAYS). Admins only, and audited.
 */
export async function retentionRoutes(app: FastifyInstance, deps: { auth: ServiceAuth; accounts: Accounts; policy: RetentionPolicy }): Promise<void> {
  app.get('/v1/config/retention', { config: { permission: 'admin' } }, async (request) => deps.policy.inForce(await deps.auth.account(request)));

  app.put('/v1/config/retention', { config: { permission: 'admin', audit: 'retention' } }, async (request) => {
    const account = await deps.auth.account(request);
    const { days } = validate<{ days: number | null }>(retentionSchema, request.body);
    await deps.accounts.setRetention(account, days);
    await deps.policy.reload();
    return deps.policy.inForce(account);
  });
}
