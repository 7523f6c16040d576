import Joi from 'joi';
import type { FastifyInstance } from 'fastify';
import { errors } from '../http/errors.js';
import type { ServiceAuth } from '../http/service-auth.js';
import { validate } from '../http/validation.js';
import { compileQuery } from '../query/compile.js';
import { QueryParseError, parseQuery } from '../query/parser.js';
import { fieldLabel } from '../http/field-labels.js';
import type { LogStore } from '../store/log-store.js';
import { LINE_STEPS, MAX_PARSERS_PER_ACCOUNT, MAX_PATTERN_CHARS, compilePattern, extract, readableChars } from './parser-rules.js';
import type { ParserRules } from './parser-rules.js';
import type { ParsingTime } from './apply.js';
import type { CaptureType, ParserInput, ParserStore } from './parser-store.js';

const types = Joi.object().pattern(Joi.string().max(64), Joi.string().valid('string', 'number', 'boolean')).max(50).default({});
// The length limit is checked after Joi so that its 400 says what the limit is for.
const pattern = Joi.string().min(1).max(MAX_PATTERN_CHARS * 4).required();
const labels = (max: number) => Joi.array().items(Joi.string().trim().min(1).max(max)).max(100).default([]);

const parserSchema = Joi.object({
  name: Joi.string().trim().min(1).max(128).required(),
  apps: labels(512),
  hosts: labels(256),
  query: Joi.string().allow('').max(4096).default(''),
  pattern,
  types,
});

/** How many of the organisation's last lines a test without lines reads. */
const TEST_LINES = 20;
const MAX_TEST_LINES = 100;
/** What matching may spend on one test request, over all its lines: ten lines' worth. */
const TEST_STEPS = 10 * LINE_STEPS;
/** How far back a test without lines looks for them. */
const TEST_LOOKBACK_MS = 7 * 24 * 3600 * 1000;

const testSchema = Joi.object({
  pattern,
  types,
  lines: Joi.array().items(Joi.string().allow('').max(16 * 1024)).max(MAX_TEST_LINES),
  apps: labels(512),
  hosts: labels(256),
  query: Joi.string().allow('').max(4096).default(''),
});

export interface ParserRoutesDeps {
  auth: ServiceAuth;
  parsers: ParserStore;
  rules: ParserRules;
  /** The organisation's share of parsing time, which tests of patterns draw on too. */
  time: ParsingTime;
  store: LogStore;
  now: () => number;
}

/** A rule's pattern, types and query are checked before anything is saved: a 400 leaves nothing changed. */
function checked(body: unknown): ParserInput {
  const input = validate<ParserInput>(parserSchema, body);
  compilePattern(input.pattern, input.types);
  try {
    parseQuery(input.query);
  } catch (error) {
    if (!(error instanceof QueryParseError)) throw error;
    throw errors.validationFailed([{ message: `"query" is not a valid search: ${error.message}`, key: 'query', field: fieldLabel(['query']) }]);
  }
  return input;
}

/**
 * /v1/config/parsers (a Logstead addition): an organisation's custom parsing rules. Admins write
 * them (audited); readers list them and try patterns. POST /v1/config/parsers/test answers the
 * fields a pattern would extract from the given lines, or from the organisation's last lines that
 * the given apps, hosts and query take.
 */
export async function parserRoutes(app: FastifyInstance, deps: ParserRoutesDeps): Promise<void> {
  const { auth, parsers, rules } = deps;
  type Params = { id: string };

  app.get('/v1/config/parsers', { config: { permission: 'read' } }, async (request) => await parsers.list(await auth.account(request)));

  app.get<{ Params: Params }>('/v1/config/parsers/:id', { config: { permission: 'read' } }, async (request) => {
    const parser = await parsers.get(await auth.account(request), request.params.id);
    if (!parser) throw errors.notFound('No parsing rule has this id.');
    return parser;
  });

  app.post('/v1/config/parsers', { config: { permission: 'admin', audit: 'parser' } }, async (request) => {
    const account = await auth.account(request);
    const input = checked(request.body);
    const created = await parsers.create(account, input, MAX_PARSERS_PER_ACCOUNT);
    if (created === 'overLimit') throw errors.conflict(`The organisation has ${MAX_PARSERS_PER_ACCOUNT} parsing rules, the most it may have; delete one first.`);
    if (created === 'nameTaken') throw errors.conflict(`A parsing rule named "${input.name}" exists; names are the lines' _logtype, so each is used once.`);
    await rules.reload(account);
    return created;
  });

  app.put<{ Params: Params }>('/v1/config/parsers/:id', { config: { permission: 'admin', audit: 'parser' } }, async (request) => {
    const account = await auth.account(request);
    const input = checked(request.body);
    const updated = await parsers.update(account, request.params.id, input);
    if (updated === undefined) throw errors.notFound('No parsing rule has this id.');
    if (updated === 'nameTaken' || updated === 'overLimit') throw errors.conflict(`A parsing rule named "${input.name}" exists; names are the lines' _logtype, so each is used once.`);
    await rules.reload(account);
    return updated;
  });

  app.delete<{ Params: Params }>('/v1/config/parsers/:id', { config: { permission: 'admin', audit: 'parser' } }, async (request) => {
    const account = await auth.account(request);
    if (!(await parsers.delete(account, request.params.id))) throw errors.notFound('No parsing rule has this id.');
    await rules.reload(account);
    return { deleted: true };
  });

  app.post('/v1/config/parsers/test', { config: { permission: 'read' } }, async (request) => {
    const { account, scope } = await auth.principal(request);
    const body = validate<{ pattern: string; types: Record<string, CaptureType>; lines?: string[]; apps: string[]; hosts: string[]; query: string }>(testSchema, request.body);
    const compiled = compilePattern(body.pattern, body.types);
    let lines = body.lines;
    if (lines === undefined) {
      const to = deps.now();
      lines = [];
      const read = deps.store.read(
        { account, fromMs: to - TEST_LOOKBACK_MS, toMs: to + 60_000, apps: body.apps, hosts: body.hosts, condition: compileQuery(body.query, scope) },
        { prefer: 'tail', limit: TEST_LINES, chronological: false },
      );
      for await (const rows of read) for (const row of rows) lines.push(row.line);
    }
    // A test shares TEST_STEPS between its lines, as ingest holds each line to LINE_STEPS, and
    // runs on the organisation's share of parsing time: any reader may ask, so tests repeated
    // with a large pattern on long lines must not hold this node's CPU.
    const tested = deps.time.spend(account, () => {
      let left = TEST_STEPS;
      return lines.map((line) => {
        const budget = { steps: Math.min(LINE_STEPS, left) };
        const read = readableChars(compiled, line.length, budget.steps);
        const got = extract(compiled, line, budget);
        left -= Math.min(LINE_STEPS, left) - Math.max(0, budget.steps);
        // `read`: how much of a line the pattern could read, when not all of it (see LINE_STEPS).
        const partly = read < line.length ? { read } : {};
        return got ? { line, matched: true, fields: got.fields, ...(got.level ? { level: got.level } : {}), ...partly } : { line, matched: false, fields: null, ...partly };
      });
    });
    if (!tested.done) throw errors.parsingTimeSpent();
    return { lines: tested.value };
  });
}
