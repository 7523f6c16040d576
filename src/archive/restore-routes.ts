import Joi from 'joi';
import type { FastifyInstance } from 'fastify';
import { errors } from '../http/errors.js';
import { listParam, parseTimeRange } from '../http/filter-params.js';
import type { Principal, ServiceAuth } from '../http/service-auth.js';
import { validate } from '../http/validation.js';
import { seesEveryLine } from '../query/access-scope.js';
import { compileQuery } from '../query/compile.js';
import type { ArchiveConfigs } from './archive-config.js';
import type { ArchiveFiles } from './archive-files.js';
import type { Restores } from './restores.js';

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

/**
 * POST /v1/archive/restore (202, a restore of archived lines into the store for search, run in the
 * background), GET and DELETE /v1/archive/restore/{id} (its progress; cancelling it), and GET
 * /v1/archive/status (what the archiver wrote per hour, and what is pending or failing). Admins
 * only; each holds to the reader's access scope.
 */
export async function restoreRoutes(app: FastifyInstance, deps: { auth: ServiceAuth; configs: ArchiveConfigs; files: ArchiveFiles; restores: Restores }): Promise<void> {
  const { auth, configs, files } = deps;

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
