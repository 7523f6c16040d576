import Joi from 'joi';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../http/errors.js';
import type { ServiceAuth } from '../http/service-auth.js';
import { validate } from '../http/validation.js';
import { internalLiteral } from '../lib/private-address.js';
import { ARCHIVE_INTEGRATIONS, type ArchiveConfigInput, type ArchiveConfigs } from './archive-config.js';
import { seesEveryLine } from '../query/access-scope.js';
import { ArchiveBucket, storeError } from './bucket.js';

/** S3's bucket names: 3 to 63 lower-case letters, digits, dots and hyphens. */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

const configSchema = (secretRequired: boolean) =>
  Joi.object({
    integration: Joi.string()
      .valid(...ARCHIVE_INTEGRATIONS)
      .required(),
    bucket: Joi.string().pattern(BUCKET_NAME).required().messages({ 'string.pattern.base': '"bucket" must be an S3 bucket name: 3 to 63 lower-case letters, digits, dots and hyphens' }),
    endpoint: Joi.string()
      .uri({ scheme: ['http', 'https'] })
      .allow('', null)
      // IBM COS and DigitalOcean Spaces have no default endpoint: it names the region's.
      .when('integration', { is: Joi.valid('ibm', 'dos'), then: Joi.string().required().invalid('', null) }),
    region: Joi.string().max(64).pattern(/^[a-z0-9-]+$/).allow('', null),
    accesskey: Joi.string().max(1024).required(),
    secretkey: secretRequired ? Joi.string().max(1024).required() : Joi.string().max(1024),
    forcepathstyle: Joi.boolean().default(false),
  });

export interface ArchiveRoutesDeps {
  auth: ServiceAuth;
  configs: ArchiveConfigs;
  /** LOGSTEAD_ALLOW_PRIVATE_ARCHIVES. */
  allowPrivate: boolean;
  /**
   * False on a shared configuration database without LOGSTEAD_SECRET_KEY: each node would seal
   * with its own key file, and the others could not open the secret.
   */
  canSeal: boolean;
}

/**
 * /v1/config/archiving, Mezmo's singleton (compat reference §5.7): GET shows the configuration
 * without its secret key, POST creates it, PUT replaces it (without `secretkey`, the stored one is
 * kept), DELETE ends archiving. POST and PUT first prove the credentials by writing and deleting a
 * small object, and save nothing if the store refuses (or, on a shared configuration database,
 * when LOGSTEAD_SECRET_KEY is not set). Restores and the archiver's status are restore-routes.ts'.
 * Admins only; changes are audited (the audit trail masks accesskey and secretkey, and the answers
 * never carry the secret).
 */
export async function archiveRoutes(app: FastifyInstance, deps: ArchiveRoutesDeps): Promise<void> {
  const { auth, configs } = deps;

  /** The body as a configuration, the credentials checked against the store. */
  async function checkedInput(body: unknown, account: string, secretRequired: boolean): Promise<ArchiveConfigInput> {
    if (!deps.canSeal) throw errors.archiveNeedsSecretKey();
    const integration = (body as { integration?: unknown } | null)?.integration;
    if (typeof integration === 'string' && !(ARCHIVE_INTEGRATIONS as readonly string[]).includes(integration)) throw errors.archiveUnsupportedIntegration(integration);
    const input = validate<ArchiveConfigInput>(configSchema(secretRequired), body);
    if (!input.endpoint) delete input.endpoint;
    if (!input.region) delete input.region;
    if (input.secretkey === undefined) {
      const stored = await configs.target(account);
      if (!stored) throw errors.archiveNotConfigured();
      input.secretkey = stored.secretkey;
    }
    if (input.endpoint && !deps.allowPrivate) {
      const internal = internalLiteral(new URL(input.endpoint));
      if (internal) throw errors.archivePrivateEndpoint(internal);
    }
    const bucket = await ArchiveBucket.open(input, deps.allowPrivate);
    try {
      await bucket.check();
    } catch (error) {
      throw errors.archiveCheckFailed(storeError(error));
    } finally {
      bucket.close();
    }
    return input;
  }

  const view = async (account: string) => {
    const found = await configs.view(account);
    if (!found) throw errors.archiveNotConfigured();
    return found;
  };

  app.get('/v1/config/archiving', { config: { permission: 'admin' } }, async (request) => view(await auth.account(request)));

  /**
   * The archive carries every line of the organisation to its bucket: a scoped admin may not say
   * where, nor stop it, since both decide what happens to lines outside their scope.
   */
  const unscopedAccount = async (request: FastifyRequest) => {
    const { account, scope } = await auth.principal(request);
    if (!seesEveryLine(scope)) throw errors.scopeForbidden(scope ?? [], 'the archive carries every line of the organisation to the bucket it names, so only an unscoped admin sets or ends it');
    return account;
  };

  app.post('/v1/config/archiving', { config: { permission: 'admin', audit: 'archiving' } }, async (request) => {
    const account = await unscopedAccount(request);
    if (await configs.view(account)) throw errors.archiveConfigured();
    const input = await checkedInput(request.body, account, true);
    if (!(await configs.save(account, input, Date.now(), 'create'))) throw errors.archiveConfigured();
    return view(account);
  });

  app.put('/v1/config/archiving', { config: { permission: 'admin', audit: 'archiving' } }, async (request) => {
    const account = await unscopedAccount(request);
    if (!(await configs.view(account))) throw errors.archiveNotConfigured();
    const input = await checkedInput(request.body, account, false);
    if (!(await configs.save(account, input, Date.now(), 'replace'))) throw errors.archiveNotConfigured();
    return view(account);
  });

  app.delete('/v1/config/archiving', { config: { permission: 'admin', audit: 'archiving' } }, async (request) => {
    const account = await unscopedAccount(request);
    if (!(await configs.remove(account))) throw errors.archiveNotConfigured();
    return { deleted: true };
  });
}
