import Joi from 'joi';
import type { FastifyInstance } from 'fastify';
import { errors } from '../http/errors.js';
import { fieldLabel } from '../http/field-labels.js';
import { type QueryParams, parseTimeRange } from '../http/filter-params.js';
import type { Principal, ServiceAuth } from '../http/service-auth.js';
import { validate } from '../http/validation.js';
import { seesEveryLine } from '../query/access-scope.js';
import { filterInsideScope } from '../query/inside-scope.js';
import { QueryParseError, parseQuery } from '../query/parser.js';
import { type ExclusionRule, type ExclusionRuleFields, type ExclusionRules, MAX_EXCLUSION_RULES } from './exclusion-rules.js';
import type { IngestionSuspension } from './suspension.js';

export interface IngestionControlRoutesDeps {
  auth: ServiceAuth;
  exclusions: ExclusionRules;
  suspension: IngestionSuspension;
  /** Applies a change at this node at once (other nodes reload on their own within a second). */
  changed: () => Promise<void>;
  now: () => number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

const names = Joi.array().items(Joi.string().trim().min(1).max(512)).max(100);
const fields = {
  title: Joi.string().allow('').max(512),
  active: Joi.boolean(),
  indexonly: Joi.boolean(),
  apps: names,
  hosts: names,
  query: Joi.string().max(8192),
};
/** Mezmo's rule: one of apps, hosts or query says which lines; a rule matching every line is not one. */
const ruleSchema = Joi.object({ ...fields, title: fields.title.default(''), active: fields.active.default(false), indexonly: fields.indexonly.default(true) }).or('apps', 'hosts', 'query');
// PATCH may clear the query ("") when apps or hosts still say which lines (checked on the merged rule).
const patchSchema = Joi.object({ ...fields, query: fields.query.allow('') });

/** An empty list or query filters nothing, so it does not count as one of apps, hosts or query. */
function withoutEmpty(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const copy: Record<string, unknown> = { ...body };
  for (const key of ['apps', 'hosts', 'query']) {
    const value = copy[key];
    if (value === '' || value === null || (Array.isArray(value) && value.length === 0)) delete copy[key];
  }
  return copy;
}

function checkQuery(query: string | undefined): void {
  if (!query) return;
  try {
    parseQuery(query);
  } catch (error) {
    if (!(error instanceof QueryParseError)) throw error;
    throw errors.validationFailed([{ message: `"query" is not a valid search: ${error.message}`, key: 'query', field: fieldLabel(['query']) }]);
  }
}

/**
 * A new rule's fields from a body as POST takes it (Mezmo's defaults filled in), or the catalogue's
 * 400: the route's and `logstead import-mezmo`'s one validation.
 */
export function parseExclusionRule(body: unknown): ExclusionRuleFields {
  const parsed = validate<Partial<ExclusionRuleFields>>(ruleSchema, withoutEmpty(body));
  checkQuery(parsed.query);
  return complete(parsed);
}

const complete = (body: Partial<ExclusionRuleFields>): ExclusionRuleFields => ({
  title: body.title ?? '',
  active: body.active ?? false,
  indexonly: body.indexonly ?? true,
  apps: body.apps ?? [],
  hosts: body.hosts ?? [],
  query: body.query ?? '',
});

/**
 * Whether a reader may see into a rule: its title, its filter and the lines it excluded. Excluded
 * lines are never stored, so their counts cannot be cut down to a reader's access scope after the
 * fact; a reader with a scope sees a rule only when every line its filter lets through is provably
 * inside the scope (query/inside-scope.ts: its query is one of the scope's searches or an AND
 * with one of them, or each app and host it names passes a search of the scope on names alone).
 * Any other rule is, to them, as a rule that does not exist. A rule whose query no longer parses
 * excludes nothing and is seen only by readers without a scope.
 */
function seesInto(principal: Principal, rule: ExclusionRule): boolean {
  if (seesEveryLine(principal.scope)) return true;
  try {
    return filterInsideScope(rule, principal.scope);
  } catch (error) {
    if (error instanceof QueryParseError) return false;
    throw error;
  }
}

/**
 * Mezmo's ingestion controls: exclusion rules (/v1/config/ingestion/exclusions, POST, GET, and
 * GET, PATCH and DELETE on /{id}) and suspending ingestion (/v1/config/ingestion/status, suspend,
 * suspend/confirm and resume). Admins change them, audited; any member may read them, since what
 * is let in decides what everyone sees, except that a member with an access scope sees only the
 * rules they can see into (seesInto), and may change only those.
 */
export async function ingestionControlRoutes(app: FastifyInstance, deps: IngestionControlRoutesDeps): Promise<void> {
  const { auth, exclusions, suspension } = deps;
  const base = '/v1/config/ingestion/exclusions';

  /** A rule of the caller's organisation that the caller can see into, or the catalogue's 404. */
  const visibleRule = async (principal: Principal, id: string): Promise<ExclusionRule> => {
    const rule = await exclusions.get(principal.account, id);
    if (!rule || !seesInto(principal, rule)) throw errors.notFound();
    return rule;
  };

  app.get(base, { config: { permission: 'read' } }, async (request) => {
    const principal = await auth.principal(request);
    return (await exclusions.list(principal.account)).filter((rule) => seesInto(principal, rule));
  });

  app.get<{ Params: { id: string } }>(`${base}/:id`, { config: { permission: 'read' } }, async (request) => visibleRule(await auth.principal(request), request.params.id));

  app.post(base, { config: { permission: 'admin', audit: 'ingestion-exclusion' } }, async (request) => {
    const account = await auth.account(request);
    const created = await exclusions.create(account, parseExclusionRule(request.body));
    if (created === 'full') throw errors.tooManyRules(`An organisation may have at most ${MAX_EXCLUSION_RULES} exclusion rules; delete one first. Nothing was created.`);
    await deps.changed();
    return created;
  });

  app.patch<{ Params: { id: string } }>(`${base}/:id`, { config: { permission: 'admin', audit: 'ingestion-exclusion' } }, async (request) => {
    const principal = await auth.principal(request);
    const { account } = principal;
    const existing = await visibleRule(principal, request.params.id);
    const patch = validate<Partial<ExclusionRuleFields>>(patchSchema, request.body);
    const { id: _id, ...current } = existing;
    const merged: ExclusionRuleFields = { ...current, ...patch };
    // The rule as it would be must still say which lines it excludes.
    validate(ruleSchema, withoutEmpty(merged));
    checkQuery(merged.query);
    const updated: ExclusionRule | undefined = await exclusions.update(account, existing.id, merged);
    if (!updated) throw errors.notFound();
    await deps.changed();
    return updated;
  });

  app.delete<{ Params: { id: string } }>(`${base}/:id`, { config: { permission: 'admin', audit: 'ingestion-exclusion' } }, async (request) => {
    const principal = await auth.principal(request);
    const rule = await visibleRule(principal, request.params.id);
    if (!(await exclusions.remove(principal.account, rule.id))) throw errors.notFound();
    await deps.changed();
    return rule;
  });

  app.get('/v1/config/ingestion/status', { config: { permission: 'read' } }, async (request) => ({
    is_ingesting: !(await suspension.isSuspended(await auth.account(request))),
  }));

  // Not audited: it changes nothing but hands out the token, which the audit trail must not keep.
  app.post('/v1/config/ingestion/suspend', { config: { permission: 'admin' } }, async (request) => ({ token: await suspension.request(await auth.account(request)) }));

  const tokenSchema = Joi.object({ token: Joi.string().max(256).required() });
  app.post('/v1/config/ingestion/suspend/confirm', { config: { permission: 'admin', audit: 'ingestion' } }, async (request) => {
    const account = await auth.account(request);
    const { token } = validate<{ token: string }>(tokenSchema, request.body);
    if (!(await suspension.confirm(account, token))) throw errors.wrongSuspendToken();
    await deps.changed();
    return { is_ingesting: false };
  });

  app.post('/v1/config/ingestion/resume', { config: { permission: 'admin', audit: 'ingestion' } }, async (request) => {
    await suspension.resume(await auth.account(request));
    await deps.changed();
    return { is_ingesting: true };
  });

  /**
   * The lines kept out of the store by exclusion rules, apart from the stored lines GET /v1/usage
   * counts (a Logstead addition): by default over the last day, in all and per rule that still
   * exists. Counted per hour of arrival, so a range takes the hours it touches.
   *
   * A reader with an access scope is shown only the rules they can see into (seesInto), each with
   * only the hours counted wholly under its present filter (a rule edited from another app's
   * lines to theirs must not show the other app's counts), and totals that are the sums of the
   * rules shown: lines excluded by other rules, by deleted rules or before a rule's last change of
   * filter are not counted for them.
   */
  app.get('/v1/usage/excluded', { config: { permission: 'read' } }, async (request) => {
    const principal = await auth.principal(request);
    const { account } = principal;
    const now = deps.now();
    const { fromMs, toMs } = parseTimeRange(request.query as QueryParams, { fromMs: now - DAY_MS, toMs: now });
    const sinceMs = Math.floor(fromMs / HOUR_MS) * HOUR_MS;
    let rules: Array<{ id: string; title: string; active: boolean; lines: number; bytes: number }>;
    let lines = 0;
    let bytes = 0;
    if (seesEveryLine(principal.scope)) {
      const counted = await exclusions.excludedSince(account, sinceMs, toMs);
      rules = (await exclusions.list(account)).map((rule) => ({ id: rule.id, title: rule.title, active: rule.active, ...(counted.get(rule.id) ?? { lines: 0, bytes: 0 }) }));
      // Every rule's counts, deleted rules' too.
      for (const count of counted.values()) {
        lines += count.lines;
        bytes += count.bytes;
      }
    } else {
      const shown = (await exclusions.listWithCurrentCounts(account, sinceMs, toMs)).filter((rule) => seesInto(principal, rule));
      rules = shown.map((rule) => ({ id: rule.id, title: rule.title, active: rule.active, lines: rule.lines, bytes: rule.bytes }));
      // The rules shown, and nothing else.
      for (const rule of rules) {
        lines += rule.lines;
        bytes += rule.bytes;
      }
    }
    return { from: fromMs, to: toMs, lines, bytes, rules };
  });
}
