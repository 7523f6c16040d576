import Joi from 'joi';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../http/errors.js';
import type { Principal, ServiceAuth } from '../http/service-auth.js';
import { validate } from '../http/validation.js';
import { internalLiteral } from '../lib/private-address.js';
import { ARCHIVE_INTEGRATIONS, type ArchiveConfigInput, type ArchiveConfigs } from './archive-config.js';
import type { ArchiveFiles } from './archive-files.js';
import type { Restores } from './restores.js';
import { listParam, parseTimeRange } from '../http/filter-params.js';
import { seesEveryLine } from '../query/access-scope.js';
import { compileQuery } from '../query/compile.js';
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

const time = Joi.alternatives(Joi.number().integer().min(0), Joi.string().pattern(/^\d+$/)).required();
const restoreSchema = Joi.object({
  from: time,
  to: time,
  query: Joi.string().allow('').max(10_000).default(''),
  days: Joi.number().integer().min(1).max(90).default(7),
  // The viewer's menus, as export's parameters: a list, or one comma-separated text.
  ...Object.fromEntries(['hosts', 'apps', 'levels', 'tags'].map((name) => [name, Joi.alternatives(Joi.array().items(Joi.string().min(1).max(1024)).max(1000), Joi.string().allow('').max(100_000))])),
});

/** A menu as export reads its parameter (split at commas, each value within what a line can hold). */
const menu = (name: 'hosts' | 'apps' | 'levels' | 'tags', value: string[] | string | undefined): string[] | undefined =>
  listParam({ [name]: Array.isArray(value) ? value.join(',') : value }, name);

const statusSchema = Joi.object({ limit: Joi.number().integer().min(1).max(10_000).default(500) });

export interface ArchiveRoutesDeps {
  auth: ServiceAuth;
  configs: ArchiveConfigs;
  files: ArchiveFiles;
  /** LOGSTEAD_ALLOW_PRIVATE_ARCHIVES. */
  allowPrivate: boolean;
  /**
   * False on a shared configuration database without LOGSTEAD_SECRET_KEY: each node would seal
   * with its own key file, and the others could not open the secret.
   */
  canSeal: boolean;
  restores: Restores;
}

/**
 * /v1/config/archiving, Mezmo's singleton (compat reference §5.7): GET shows the configuration
 * without its secret key, POST creates it, PUT replaces it (without `secretkey`, the stored one is
 * kept), DELETE ends archiving. POST and PUT first prove the credentials by writing and deleting a
 * small object, and save nothing if the store refuses (or, on a shared configuration database,
 * when LOGSTEAD_SECRET_KEY is not set). And GET /v1/archive/status: what was
 * written per hour and what is pending or failing. Admins only; changes are audited (the audit
 * trail masks accesskey and secretkey, and the answers never carry the secret).
 */
export async function archiveRoutes(app: FastifyInstance, deps: ArchiveRoutesDeps): Promise<void> {
  const { auth, configs, files } = deps;

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

  /** The archive carries every line of the organisation to its bucket: a scoped admin may not say where. */
  const unscopedAccount = async (request: FastifyRequest) => {
    const { account, scope } = await auth.principal(request);
    if (!seesEveryLine(scope)) throw errors.scopeForbidden(scope ?? [], 'the archive carries every line of the organisation to the bucket it names, so only an unscoped admin sets it');
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
    const account = await auth.account(request);
    if (!(await configs.remove(account))) throw errors.archiveNotConfigured();
    return { deleted: true };
  });

  app.post('/v1/archive/restore', { config: { permission: 'admin', audit: 'archive-restore' } }, async (request, reply) => {
    const { account, scope } = await auth.principal(request);
    type Menu = string[] | string | undefined;
    const body = validate<{ from: number | string; to: number | string; query: string; days: number; hosts: Menu; apps: Menu; levels: Menu; tags: Menu }>(restoreSchema, request.body);
    const { fromMs, toMs } = parseTimeRange({ from: String(body.from), to: String(body.to) });
    compileQuery(body.query, scope); // a query that does not parse is refused now, as export refuses it
    if (!(await configs.view(account))) throw errors.archiveNotConfigured();
    const filters = { hosts: menu('hosts', body.hosts), apps: menu('apps', body.apps), levels: menu('levels', body.levels), tags: menu('tags', body.tags) };
    const started = await deps.restores.begin(account, { fromMs, toMs, query: body.query, filters, days: body.days, scope });
    return reply.code(202).send(started);
  });

  /**
   * A restore's counts are of the lines inside the scope of whoever started it. A reader with an
   * access scope is shown (and may cancel) only restores started within it: under searches that
   * are all among the reader's own. Any other is, to them, a restore that does not exist.
   */
  const restoreInScope = async (principal: Principal, id: string): Promise<void> => {
    if (seesEveryLine(principal.scope)) return;
    const started = await deps.restores.scopeOf(principal.account, id);
    const reader = principal.scope ?? [];
    if (!started || !started.every((search) => reader.includes(search))) throw errors.restoreNotFound();
  };

  app.get<{ Params: { id: string } }>('/v1/archive/restore/:id', { config: { permission: 'admin' } }, async (request) => {
    const principal = await auth.principal(request);
    await restoreInScope(principal, request.params.id);
    const found = await deps.restores.status(principal.account, request.params.id);
    if (!found) throw errors.restoreNotFound();
    return found;
  });

  // Cancels a running restore on whichever node runs it (it reads its row between steps); the
  // lines already loaded stay, kept as the restore said.
  app.delete<{ Params: { id: string } }>('/v1/archive/restore/:id', { config: { permission: 'admin', audit: 'archive-restore' } }, async (request) => {
    const principal = await auth.principal(request);
    await restoreInScope(principal, request.params.id);
    const outcome = await deps.restores.cancel(principal.account, request.params.id);
    if (!outcome) throw errors.restoreNotFound();
    if ('finished' in outcome) throw errors.restoreFinished(outcome.finished.status);
    return outcome.cancelled;
  });

  /**
   * The archiver's progress and its files. A file holds every line of its hour, whatever scope, so
   * a reader with an access scope is shown each file without its `lines` and `bytes`.
   */
  app.get('/v1/archive/status', { config: { permission: 'admin' } }, async (request) => {
    const { account, scope } = await auth.principal(request);
    const { limit } = validate<{ limit: number }>(statusSchema, request.query);
    const position = await files.position(account);
    const all = await files.status(account, limit);
    const list = seesEveryLine(scope) ? all : all.map(({ lines: _lines, bytes: _bytes, ...file }) => file);
    return {
      configured: position !== undefined,
      ...(position ? { configuredAt: position.configuredAt, archivedArrivalsBefore: position.passedTo, hoursDueBefore: new Date(position.eligibleBefore).toISOString() } : {}),
      pending: list.filter((file) => file.status === 'pending').length,
      failing: list.filter((file) => file.status === 'pending' && file.lastError !== null).length,
      files: list,
    };
  });
}
