/**
 * Access scopes hold on every read path (issue 26, point 4), shown differentially. Generated
 * scopes (one search, a list of searches, several scoped groups, a scoped group beside an
 * unscoped one), user queries and lines; a member whose groups carry the scope asks every read
 * path, and each answer must hold no line outside the scope AND equal the oracle: what the service
 * key gets for the same request, cut down to the scope by the in-memory predicate (each search of
 * the scope through `lineMatcher({query: search}, null)` over the stored row), so that an empty or
 * short answer cannot pass. Members in no scoped group must get exactly the key's answer.
 *
 * Seeded and reproducible: LOGSTEAD_SCOPE_SEED=<n> reruns one seed; a failure names its seed.
 * Runs on embedded chDB by default and on the ClickHouse server path with
 * LOGSTEAD_TEST_EXECUTOR=clickhouse (src/testing/log-engine.ts; there the server is, unless
 * LOGSTEAD_TEST_CLICKHOUSE_URL names a real one, the embedded engine served over ClickHouse's
 * HTTP interface, a stand-in).
 */
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import WebSocket from 'ws';
import { type MemberSession, type Reply, type TestServer, eventually, jsonLines, request, startTestServer } from '../testing/harness.js';
import { assertFieldsAgree } from '../testing/field-oracle.js';
import { startHttpReceiver, startSmtpReceiver } from '../testing/receivers.js';
import { awaitScopeSwitch } from '../testing/scope-switch.js';
import { type LineFilters, lineMatcher } from '../query/line-matcher.js';
import type { StoredLine } from '../store/types.js';

const SEED = Number(process.env.LOGSTEAD_SCOPE_SEED ?? 20_260_526);
const MINUTE = 60_000;
/** The alert clock: on a minute boundary, moved a whole minute at a time to open a new alert window. */
let clock = Math.floor(Date.now() / MINUTE) * MINUTE;
/** Stored lines are timed in the two hours before the clock; live ones in the hour before it. */
const BASE = clock - 2 * 3_600_000;
const LIVE_BASE = clock - 3_600_000;
const FROM = BASE - 1000;
const TO = clock;

let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
let hooks: Awaited<ReturnType<typeof startHttpReceiver>>;

before(async () => {
  smtp = await startSmtpReceiver();
  hooks = await startHttpReceiver();
  server = await startTestServer({ LOGSTEAD_SMTP_URL: smtp.url, LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS: 'true', LOGSTEAD_DELIVERY_RETRY_BASE_MS: '50' }, { now: () => clock });
});
after(async () => {
  await server?.close();
  await Promise.all([smtp?.close(), hooks?.close()]);
});

/** Runs a test body so that any failure names the seed that reproduces it. */
const seeded = (body: () => Promise<void>) => async () => {
  try {
    await body();
  } catch (error) {
    if (error instanceof Error) error.message += `\n(seed ${SEED}: rerun with LOGSTEAD_SCOPE_SEED=${SEED})`;
    console.error(`scope differential failed with seed ${SEED}`);
    throw error;
  }
};

/** A small deterministic random source for picks outside fast-check (which lines to look at). */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)],
    shuffle: <T>(items: readonly T[]): T[] => {
      const out = [...items];
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [out[i], out[j]] = [out[j], out[i]];
      }
      return out;
    },
  };
}
const rng = random(SEED);

// ---------------------------------------------------------------------------------------------
// Generated lines
// ---------------------------------------------------------------------------------------------

const WORDS = ['error', 'Error', 'timeout', 'TimeoutError', 'user', 'user_id', 'café', 'naïve', '404', '500', 'payment', 'refund', 'login', 'ok', 'foo-bar', '/var/log', '日本', 'disk'];
const HOSTS = ['web-1', 'web-2', 'db-1', 'Web-10', 'cache'];
const APPS = ['nginx', 'api', 'billing', 'worker', 'Api'];
const LEVELS = ['INFO', 'ERROR', 'WARN', 'DEBUG'];
const TAG_SETS: string[][] = [[], ['blue'], ['green', 'k8s-prod'], ['blue', 'eu']];
const TEAMS = ['payments', 'search', 'core'];

const rawArbitrary = fc.record({
  words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 5 }),
  host: fc.constantFrom(...HOSTS),
  app: fc.constantFrom(...APPS),
  level: fc.option(fc.constantFrom(...LEVELS), { nil: undefined }),
  env: fc.constantFrom(undefined, 'prod', 'staging'),
  tags: fc.nat(TAG_SETS.length - 1),
  json: fc.option(
    fc.record(
      {
        status: fc.constantFrom(200, 404, 500, 503),
        code: fc.integer({ min: 0, max: 600 }),
        name: fc.constantFrom(...WORDS),
        user: fc.record({ name: fc.constantFrom('ann', 'bob'), id: fc.nat(50) }),
      },
      { requiredKeys: [] },
    ),
    { nil: undefined },
  ),
  meta: fc.option(
    fc.record(
      {
        team: fc.constantFrom(...TEAMS),
        // Now and then a string where numbers came first: that line's meta is kept, unindexed.
        code: fc.oneof({ weight: 9, arbitrary: fc.integer({ min: 0, max: 600 }) }, { weight: 1, arbitrary: fc.constant('n/a') }),
        region: fc.constantFrom('eu', 'us'),
      },
      { requiredKeys: [] },
    ),
    { nil: undefined },
  ),
});
type Raw = typeof rawArbitrary extends fc.Arbitrary<infer T> ? T : never;

/** Every line starts with a marker of fixed width (no query word reaches it) that names its generated source. */
let markerCount = 0;
const sources = new Map<string, Raw>();
const markerOf = (line: string) => line.slice(0, 6);
const nextTime = (() => {
  let stored = 0;
  let live = 0;
  return (kind: 'stored' | 'live') => (kind === 'stored' ? BASE + 1000 * stored++ : LIVE_BASE + 1000 * live++);
})();

/**
 * Sends lines, one request per tag set (tags come with the request), and returns the markers each
 * request carried, in the order they were sent.
 */
async function ingestRequests(raws: Raw[], kind: 'stored' | 'live'): Promise<string[][]> {
  const sent: string[][] = [];
  const byTags = new Map<number, { markers: string[]; lines: Array<Record<string, unknown>> }>();
  for (const raw of raws) {
    const marker = `zq${String(markerCount++).padStart(4, '0')}`;
    sources.set(marker, raw);
    const text = `${marker} ${raw.words.join(' ')}${raw.json ? ` ${JSON.stringify(raw.json)}` : ''}`;
    const line = { line: text, host: raw.host, app: raw.app, level: raw.level, env: raw.env, meta: raw.meta, timestamp: nextTime(kind) };
    const batch = byTags.get(raw.tags) ?? { markers: [], lines: [] };
    batch.markers.push(marker);
    batch.lines.push(line);
    byTags.set(raw.tags, batch);
  }
  for (const [tags, { markers: carried, lines }] of byTags) {
    sent.push(carried);
    const tagParam = TAG_SETS[tags].length ? `&tags=${TAG_SETS[tags].join(',')}` : '';
    const reply = await request(`${server.url}/logs/ingest?hostname=gen${tagParam}`, {
      method: 'POST',
      headers: { apikey: server.org.ingestionKey, 'content-type': 'application/json' },
      body: JSON.stringify({ lines }),
    });
    assert.equal(reply.status, 200, reply.text);
  }
  return sent;
}

/** Sends lines and returns their markers. */
const ingest = async (raws: Raw[], kind: 'stored' | 'live'): Promise<string[]> => (await ingestRequests(raws, kind)).flat();

/** Every stored line of the organisation, by id and by marker: what the in-memory predicate judges. */
let rows = new Map<string, StoredLine>();
let byMarker = new Map<string, StoredLine>();
async function readStored(): Promise<void> {
  rows = new Map();
  byMarker = new Map();
  for await (const chunk of server.running.store.read({ account: server.org.account, fromMs: 0, toMs: 2_000_000_000_000 }, { prefer: 'head', limit: 100_000, chronological: true })) {
    for (const row of chunk) {
      rows.set(row.id, row);
      byMarker.set(markerOf(row.line), row);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Generated searches (scopes and user queries)
// ---------------------------------------------------------------------------------------------

const LEAVES = [
  'error', 'Error', '=Error', '==error', 'timeout', 'user', 'café', 'naïve', '404', '500', 'payment', 'refund', 'login', 'ok', '"foo-bar"', '"/var/log"', '日本', 'disk',
  ...HOSTS.map((host) => `host:${host}`), 'host:web', 'host:==web-1',
  ...APPS.map((app) => `app:${app}`), 'app:=Api', 'app:===api', 'app:(api OR worker)',
  ...LEVELS.map((level) => `level:${level.toLowerCase()}`),
  'tag:blue', 'tag:green', 'tag:eu', 'tag:*', 'env:prod', 'env:*',
  ...TEAMS.map((team) => `meta.team:${team}`), 'meta.code:>=300', 'meta.code:<100', 'meta.region:eu', 'meta.region:*', 'meta.code:=404',
  'status:>=400', 'status:500', 'status:(>=400 <500)', 'code:<100', 'code:>=500', 'name:error', 'user.name:ann', 'user.id:<10', 'status:*',
  '_mezmo_line_size:>60', '_mezmo_line_size:<=40',
];
const searchArbitrary: fc.Arbitrary<string> = fc.letrec((tie) => ({
  search: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...LEAVES),
    fc.tuple(tie('search'), tie('search')).map(([a, b]) => `${a} ${b}`),
    fc.tuple(tie('search'), tie('search')).map(([a, b]) => `${a} OR ${b}`),
    fc.tuple(tie('search'), tie('search')).map(([a, b]) => `(${a} AND ${b})`),
    tie('search').map((search) => `-(${search})`),
    tie('search').map((search) => `NOT ${search}`),
  ),
})).search;

const searchPool = fc.sample(searchArbitrary, { seed: SEED, numRuns: 3000 });
let searchCursor = 0;

/** The share of stored lines a search selects, through the in-memory predicate. */
const share = (filters: LineFilters) => {
  const matches = lineMatcher(filters, null);
  let n = 0;
  for (const row of rows.values()) if (matches(row)) n++;
  return n / rows.size;
};

/** The next generated search that selects between `min` and `max` of the stored lines. */
function nextSearch(min: number, max: number): string {
  while (searchCursor < searchPool.length) {
    const search = searchPool[searchCursor++];
    try {
      const part = share({ query: search });
      if (part >= min && part <= max) return search;
    } catch {
      // A generated search the parser refuses: skip it.
    }
  }
  throw new Error('ran out of generated searches');
}

// ---------------------------------------------------------------------------------------------
// Scopes and the oracle
// ---------------------------------------------------------------------------------------------

interface Scope {
  name: string;
  /** The groups the member is put in, as the config API takes them. */
  groups: Array<{ name: string; access_scopes: string | string[] }>;
  /** The searches that bound the member (null: every line). */
  searches: string[] | null;
}

/** Whether a stored line is inside a scope: any of its searches, each judged alone by the in-memory predicate. */
function insideOf(scope: Scope): (row: StoredLine) => boolean {
  if (scope.searches === null) return () => true;
  const tests = scope.searches.map((search) => lineMatcher({ query: search }, null));
  return (row) => tests.some((matches) => matches(row));
}

/** A user's request: the query and, now and then, list filters. */
interface Ask {
  query: string;
  hosts?: string[];
  apps?: string[];
  levels?: string[];
  tags?: string[];
}

function askParams(ask: Ask, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams({ from: String(FROM), to: String(TO), query: ask.query });
  for (const name of ['hosts', 'apps', 'levels', 'tags'] as const) if (ask[name]?.length) params.set(name, ask[name]!.join(','));
  for (const [name, value] of Object.entries(extra)) params.set(name, value);
  return params.toString();
}

const keyHeaders = () => ({ servicekey: server.org.serviceKey });

async function get(path: string, headers: Record<string, string>): Promise<Reply> {
  const reply = await request(`${server.url}${path}`, { headers });
  assert.equal(reply.status, 200, `${path}: ${reply.status} ${reply.text}`);
  return reply;
}

async function post(path: string, headers: Record<string, string>, body: unknown): Promise<Reply> {
  const reply = await request(`${server.url}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(reply.status, 200, `${path}: ${reply.status} ${reply.text}`);
  return reply;
}

type LineRecord = Record<string, any>;
const order = (a: LineRecord, b: LineRecord) => a._ts - b._ts || (BigInt(a._id) < BigInt(b._id) ? -1 : BigInt(a._id) > BigInt(b._id) ? 1 : 0);
const markersOf = (records: LineRecord[]) => records.map((record) => markerOf(record._line));

/** What one scenario checks against: the scope, its predicate, and how to describe a failure. */
interface Case {
  scope: Scope;
  inside: (row: StoredLine) => boolean;
  member: MemberSession;
  what: string;
}

/** No record may be outside the scope: each is looked up as stored and judged by the predicate. */
function assertInside(c: Case, path: string, records: LineRecord[]): void {
  for (const record of records) {
    const row = rows.get(record._id);
    assert.ok(row, `${path}: ${c.what}: line ${record._id} is not a stored line`);
    assert.ok(c.inside(row), `${path}: ${c.what}: LINE OUTSIDE THE SCOPE returned: ${record._line}`);
  }
}

/** The key's /v1/export for an ask, cut down to the scope: the oracle of every line path. */
async function oracleLines(c: Case, ask: Ask): Promise<{ all: LineRecord[]; inside: LineRecord[] }> {
  const all = jsonLines((await get(`/v1/export?${askParams(ask, { size: '10000' })}`, keyHeaders())).text);
  return { all, inside: all.filter((record) => c.inside(rows.get(record._id)!)) };
}

// ---------------------------------------------------------------------------------------------
// The paths
// ---------------------------------------------------------------------------------------------

const stats = { chartNamesHidden: 0, scopedAsks: 0, narrowed: 0, emptyInside: 0, contextOutside: 0, contextInside: 0, tailLines: 0, alertOutsideAlone: 0, alertFires: 0 };

async function checkExports(c: Case, ask: Ask, oracle: LineRecord[]): Promise<void> {
  const what = `${c.what}, query ${JSON.stringify(ask)}`;
  const v1 = jsonLines((await get(`/v1/export?${askParams(ask, { size: '10000' })}`, c.member.headers())).text);
  assertInside(c, '/v1/export', v1);
  assert.deepEqual(markersOf(v1), markersOf(oracle), `/v1/export: ${what}`);
  assert.deepEqual(v1, oracle, `/v1/export records: ${what}`);

  // /v2/export, every page, in small pages either way.
  const size = String(15 + rng.int(60));
  const prefer = rng.pick(['head', 'tail']);
  const pages: LineRecord[] = [];
  let token: string | null = null;
  let count = 0;
  do {
    const page: string = token ? `&pagination_id=${encodeURIComponent(token)}` : '';
    const reply = await get(`/v2/export?${askParams(ask, { size, prefer })}${page}`, c.member.headers());
    assertInside(c, '/v2/export', reply.json.lines);
    assert.ok(reply.json.lines.length <= Number(size));
    pages.push(...reply.json.lines);
    token = reply.json.pagination_id;
    assert.ok(++count < 1000, 'pages end');
  } while (token);
  assert.deepEqual([...pages].sort(order), oracle, `/v2/export (size ${size}, prefer ${prefer}): ${what}`);
}

async function checkHistogram(c: Case, ask: Ask, oracle: LineRecord[]): Promise<void> {
  const buckets = 5 + rng.int(60);
  const reply = await get(`/v1/histogram?${askParams(ask, { buckets: String(buckets) })}`, c.member.headers());
  const { from, interval } = reply.json;
  const expected = Array.from({ length: buckets }, (_, index) => ({ ts: from + index * interval, count: 0, levels: {} as Record<string, number> }));
  for (const record of oracle) {
    const bucket = expected[Math.floor((record._ts - from) / interval)];
    bucket.count++;
    bucket.levels[record.level] = (bucket.levels[record.level] ?? 0) + 1;
  }
  assert.deepEqual(reply.json.buckets, expected, `/v1/histogram (${buckets} buckets): ${c.what}, query ${JSON.stringify(ask)}`);
}

async function checkFacets(c: Case, ask: Ask, oracle: LineRecord[]): Promise<void> {
  const reply = await get(`/v1/viewer/facets?${askParams(ask, { limit: '500' })}`, c.member.headers());
  const own = { host: 'hosts', app: 'apps', level: 'levels', tag: 'tags' } as const;
  for (const facet of ['host', 'app', 'level', 'tag'] as const) {
    // Each menu's counts leave out its own selection (they cross-filter), so its oracle does too.
    const inside = ask[own[facet]] ? (await oracleLines(c, { ...ask, [own[facet]]: undefined })).inside : oracle;
    const counts = new Map<string, number>();
    for (const record of inside) {
      const values: string[] = facet === 'tag' ? record.tags : [facet === 'host' ? record._host : facet === 'app' ? record._app : record.level];
      for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
    }
    const canonical = (list: Array<{ value: string; count: number }>) => [...list].sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
    const expected = canonical([...counts].map(([value, count]) => ({ value, count })));
    assert.deepEqual(canonical(reply.json[facet]), expected, `/v1/viewer/facets ${facet}: ${c.what}, query ${JSON.stringify(ask)}`);
  }
}

/**
 * Log patterns: the member's count is the scope's lines, every example is a line inside it, and
 * the whole answer (templates, counts, times, volume, examples, new marks) is what the key gets
 * asking for the same lines by adding the scope's searches to its query.
 */
async function checkPatterns(c: Case, ask: Ask, oracle: LineRecord[]): Promise<void> {
  const what = `/v1/viewer/patterns: ${c.what}, query ${JSON.stringify(ask)}`;
  const reply = await get(`/v1/viewer/patterns?${askParams(ask, { limit: '500', buckets: '7' })}`, c.member.headers());
  assert.equal(reply.json.lines, oracle.length, what);
  const patterns = reply.json.patterns as Array<{ lines: number; first: number; example: string }>;
  assert.equal(patterns.reduce((sum, pattern) => sum + pattern.lines, 0) + reply.json.others.lines, oracle.length, what);
  for (const pattern of patterns) {
    assert.ok(oracle.some((record) => record._line === pattern.example && record._ts === pattern.first), `${what}: EXAMPLE OUTSIDE THE SCOPE: ${pattern.example}`);
  }
  const within = c.scope.searches === null ? ask.query : [ask.query, c.scope.searches.map((search) => `(${search})`).join(' OR ')].filter(Boolean).map((part) => `(${part})`).join(' ');
  const keys = await get(`/v1/viewer/patterns?${askParams({ ...ask, query: within }, { limit: '500', buckets: '7' })}`, keyHeaders());
  assert.deepEqual(reply.json, keys.json, `${what}: the key's answer for the same lines`);
}

/** The fields sidebar: every field, count, top value and stat is the one the scope's lines alone give. */
async function checkFields(c: Case, ask: Ask, oracle: LineRecord[]): Promise<void> {
  const reply = await get(`/v1/viewer/fields?${askParams(ask, { top: '6' })}`, c.member.headers());
  assertFieldsAgree(reply.json, oracle, 6, `/v1/viewer/fields: ${c.what}, query ${JSON.stringify(ask)}: `);
}

async function checkBacktest(c: Case, ask: Ask, oracle: LineRecord[]): Promise<void> {
  const channel = { operator: 'presence', triggerlimit: 1, triggerinterval: '1m', immediate: false, terminal: true };
  const reply = await post('/v1/alerts/backtest', c.member.headers(true), { ...ask, days: 1, channel });
  const { evaluatedFrom, evaluatedTo } = reply.json;
  const perWindow = new Map<number, number>();
  for (const record of oracle) {
    if (record._ts < evaluatedFrom || record._ts >= evaluatedTo) continue;
    const start = Math.floor(record._ts / MINUTE) * MINUTE;
    perWindow.set(start, (perWindow.get(start) ?? 0) + 1);
  }
  const expected = [...perWindow]
    .sort(([a], [b]) => a - b)
    .map(([windowStart, count]) => ({ at: windowStart + MINUTE, windowStart, windowEnd: windowStart + MINUTE, kind: 'terminal', lines: count, windowLines: count }));
  assert.deepEqual(reply.json.firings, expected, `POST /v1/alerts/backtest: ${c.what}, query ${JSON.stringify(ask)}`);
}

/** A graph's series computed from the scoped oracle's records: what a chart inside the scope must answer. */
function expectedSeries(oracle: LineRecord[], graph: { measure: { type: 'count' | 'max'; field?: string }; breakdown: { field: string; limit: number } }, from: number, interval: number, count: number) {
  const textOf = (record: LineRecord, field: string): string | undefined => {
    if (field === 'app') return record._app || undefined;
    const value = record._metaUnindexed ? undefined : record.meta?.[field.slice('meta.'.length)];
    return value === undefined || value === null ? undefined : typeof value === 'string' ? value : JSON.stringify(value);
  };
  const valueOf = (records: LineRecord[]) => {
    if (graph.measure.type === 'count') return records.length;
    const numbers = records.map((record) => (record._metaUnindexed ? undefined : record.meta?.[graph.measure.field!.slice('meta.'.length)])).filter((value): value is number => typeof value === 'number');
    return numbers.length ? Math.max(...numbers) : null;
  };
  const points = (records: LineRecord[]) =>
    Array.from({ length: count }, (_, at) => {
      const inBucket = records.filter((record) => Math.floor((record._ts - from) / interval) === at);
      return [from + at * interval, inBucket.length === 0 && graph.measure.type !== 'count' ? null : valueOf(inBucket)];
    });
  const lines = new Map<string, number>();
  for (const record of oracle) {
    const value = textOf(record, graph.breakdown.field);
    if (value !== undefined) lines.set(value, (lines.get(value) ?? 0) + 1);
  }
  const top = [...lines].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0)).slice(0, graph.breakdown.limit).map(([value]) => value);
  const series: Array<{ name: string; points: unknown[]; other?: true }> = top.map((value) => ({ name: value, points: points(oracle.filter((record) => textOf(record, graph.breakdown.field) === value)) }));
  const rest = oracle.filter((record) => !top.includes(textOf(record, graph.breakdown.field)!));
  if (rest.length) series.push({ name: 'other', points: points(rest), other: true });
  return series;
}

/**
 * Graphs (POST /v1/viewer/chart and a board's saved graph): lines by app, and the largest
 * meta.code by meta.team. Every series, and every name a breakdown gives, comes from the lines
 * inside the scope: a value found only outside it never names a series.
 */
async function checkCharts(c: Case, ask: Ask, oracle: LineRecord[]): Promise<void> {
  const buckets = 200 + rng.int(800);
  const filters = { query: ask.query, apps: ask.apps ?? [], hosts: ask.hosts ?? [], levels: ask.levels ?? [], tags: ask.tags ?? [] };
  const graphs = [
    { title: 'lines by app', ...filters, measure: { type: 'count' as const }, breakdown: { field: 'app', limit: 20 } },
    { title: 'largest code by team', ...filters, measure: { type: 'max' as const, field: 'meta.code' }, breakdown: { field: 'meta.team', limit: 2 } },
  ];
  const board = await post('/v1/config/board', keyHeaders(), { name: `differential ${c.scope.name}`, graphs });
  const insideValues = new Set(oracle.flatMap((record) => [record._app, record.meta?.team].filter((value) => typeof value === 'string')));
  for (const [at, graph] of graphs.entries()) {
    const what = `${graph.title}: ${c.what}, query ${JSON.stringify(ask)}`;
    const unsaved = await post('/v1/viewer/chart', c.member.headers(true), { ...graph, from: FROM, to: TO, buckets });
    const saved = await get(`/v1/board/${board.json.boardId}/graph/${board.json.graphs[at].graphId}/data?from=${FROM}&to=${TO}&buckets=${buckets}`, c.member.headers());
    assert.deepEqual(saved.json, unsaved.json, `the saved graph answers as the unsaved one: ${what}`);
    const { from, interval } = unsaved.json;
    for (const series of unsaved.json.series) {
      assert.ok(series.other || insideValues.has(series.name), `A SERIES NAMED FROM OUTSIDE THE SCOPE: "${series.name}" (${what})`);
    }
    // The key's chart names values the scope keeps out: the check above had something to catch.
    const names = new Set(unsaved.json.series.map((series: { name: string }) => series.name));
    const keyChart = await post('/v1/viewer/chart', keyHeaders(), { ...graph, from: FROM, to: TO, buckets });
    if (keyChart.json.series.some((series: { name: string; other?: true }) => !series.other && !names.has(series.name))) stats.chartNamesHidden++;
    assert.deepEqual(unsaved.json.series, expectedSeries(oracle, graph, from, interval, Math.ceil((TO - FROM + 1) / interval)), `POST /v1/viewer/chart: ${what}`);
  }
}

async function checkUsage(c: Case): Promise<void> {
  const reply = await get(`/v1/usage?from=${FROM}&to=${TO}`, c.member.headers());
  const keyUsage = await get(`/v1/usage?from=${FROM}&to=${TO}`, keyHeaders());
  const inside = [...rows.values()].filter((row) => row.ts >= FROM && row.ts <= TO && c.inside(row));
  const rank = (column: 'app' | 'host') => {
    const volumes = new Map<string, { lines: number; bytes: number }>();
    for (const row of inside) {
      const volume = volumes.get(row[column]) ?? { lines: 0, bytes: 0 };
      volume.lines++;
      volume.bytes += row.size;
      volumes.set(row[column], volume);
    }
    return [...volumes]
      .map(([name, volume]) => ({ name, ...volume }))
      .sort((a, b) => b.bytes - a.bytes || b.lines - a.lines || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .slice(0, 10);
  };
  const isJsonObject = (text: string) => {
    try {
      return text.startsWith('{') && JSON.parse(text) !== undefined;
    } catch {
      return false;
    }
  };
  const expectedTotals = {
    lines: inside.length,
    bytes: inside.reduce((sum, row) => sum + row.size, 0),
    metaUnindexedLines: inside.filter((row) => !row.meta_indexed && isJsonObject(row.meta)).length,
  };
  assert.deepEqual(reply.json.totals, expectedTotals, `/v1/usage totals: ${c.what}`);
  assert.deepEqual(reply.json.topApps, rank('app'), `/v1/usage topApps: ${c.what}`);
  assert.deepEqual(reply.json.topHosts, rank('host'), `/v1/usage topHosts: ${c.what}`);
  const days = reply.json.days as Array<{ day: string; lines: number; bytes: number }>;
  assert.deepEqual(
    days.reduce((sum, day) => ({ lines: sum.lines + day.lines, bytes: sum.bytes + day.bytes }), { lines: 0, bytes: 0 }),
    { lines: expectedTotals.lines, bytes: expectedTotals.bytes },
    `/v1/usage days: ${c.what}`,
  );
  if (c.scope.searches === null) assert.deepEqual(reply.json, keyUsage.json, `/v1/usage unscoped equals the key's: ${c.what}`);
}

async function checkContext(c: Case): Promise<void> {
  const all = [...rows.values()].filter((row) => row.ts >= FROM && row.ts <= TO);
  const inside = rng.shuffle(all.filter(c.inside)).slice(0, 3);
  const outside = rng.shuffle(all.filter((row) => !c.inside(row))).slice(0, 3);
  for (const row of outside) {
    const path = `/v1/viewer/context?id=${row.id}&ts=${row.ts}`;
    assert.equal((await request(`${server.url}${path}`, { headers: keyHeaders() })).status, 200, 'the key sees the line');
    const reply = await request(`${server.url}${path}`, { headers: c.member.headers() });
    assert.equal(reply.status, 404, `/v1/viewer/context of a line outside the scope: ${c.what}: LINE OUTSIDE THE SCOPE returned: ${row.line}`);
    assert.match(reply.json.error, /No such line/);
    stats.contextOutside++;
  }
  const sorted = [...rows.values()].sort((a, b) => a.ts - b.ts || (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  for (const row of inside) {
    const by = rng.pick(['host', 'app', 'both'] as const);
    const before = 1 + rng.int(8);
    const afterCount = 1 + rng.int(8);
    const reply = await get(`/v1/viewer/context?id=${row.id}&ts=${row.ts}&by=${by}&before=${before}&after=${afterCount}`, c.member.headers());
    assert.equal(reply.json.line._id, row.id);
    assertInside(c, '/v1/viewer/context', [...reply.json.before, ...reply.json.after]);
    const neighbours = sorted.filter((other) => c.inside(other) && (by === 'app' || other.host === row.host) && (by === 'host' || other.app === row.app));
    const at = neighbours.findIndex((other) => other.id === row.id);
    const expectedBefore = neighbours.slice(Math.max(0, at - before), at).map((other) => other.id);
    const expectedAfter = neighbours.slice(at + 1, at + 1 + afterCount).map((other) => other.id);
    assert.deepEqual(reply.json.before.map((record: LineRecord) => record._id), expectedBefore, `/v1/viewer/context before (by ${by}): ${c.what}`);
    assert.deepEqual(reply.json.after.map((record: LineRecord) => record._id), expectedAfter, `/v1/viewer/context after (by ${by}): ${c.what}`);
    stats.contextInside++;
  }
}

async function checkEmailedExport(c: Case, ask: Ask, oracle: LineRecord[]): Promise<void> {
  const subject = `scope export ${c.scope.name}`;
  const reply = await request(`${server.url}/v1/export?${askParams(ask, { size: '10000', email: 'scoped@example.com', emailSubject: subject })}`, { headers: c.member.headers(true) });
  assert.equal(reply.status, 200, reply.text);
  const mail = await eventually(() => smtp.messages.find((message) => message.subject === subject), 15_000, 'the export e-mail');
  const link = /(http:\/\/\S+\/v1\/export\/download\/\S+)/.exec(mail.text ?? '')![1];
  const download = await fetch(link);
  assert.equal(download.status, 200);
  const downloaded = jsonLines(zlib.gunzipSync(Buffer.from(await download.arrayBuffer())).toString());
  assertInside(c, 'e-mailed export', downloaded);
  assert.deepEqual(downloaded, oracle, `e-mailed export: ${c.what}, query ${JSON.stringify(ask)}`);
}

interface OpenTail {
  socket: WebSocket;
  lines: LineRecord[];
}

function openTail(ask: Ask, headers: Record<string, string>): Promise<OpenTail> {
  const params = new URLSearchParams({ q: ask.query });
  for (const name of ['hosts', 'apps', 'levels', 'tags'] as const) if (ask[name]?.length) params.set(name, ask[name]!.join(','));
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/ws/tail?${params}`, 'json', { headers });
    const tail: OpenTail = { socket, lines: [] };
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString());
      if (message.e === 'logs') tail.lines.push(...message.p);
      else if (message.p?.connected) resolve(tail);
    });
    socket.on('error', reject);
  });
}

/** Tails open for every ask while fresh lines arrive: each gets exactly the new lines of its ask inside the scope. */
async function checkTail(c: Case, asks: Ask[]): Promise<void> {
  const tails = await Promise.all(asks.map((ask) => openTail(ask, c.member.headers())));
  const everything = await openTail({ query: '' }, keyHeaders());
  const sent = await ingest(fc.sample(rawArbitrary, { seed: SEED + markerCount, numRuns: 40 }), 'live');
  await eventually(() => (everything.lines.length >= sent.length ? true : undefined), 5000, 'the key tail has every new line');
  await readStored();
  const fresh = sent.map((marker) => byMarker.get(marker)!);
  const expected = asks.map((ask) => {
    const matches = lineMatcher(ask, null);
    return fresh.filter((row) => matches(row) && c.inside(row)).map((row) => row.id);
  });
  await eventually(() => (tails.every((tail, index) => tail.lines.length >= expected[index].length) ? true : undefined), 5000, 'the member tails');
  await new Promise((resolve) => setTimeout(resolve, 250)); // anything more would be a line too many
  for (const [index, tail] of tails.entries()) {
    assertInside(c, '/ws/tail', tail.lines);
    assert.deepEqual(tail.lines.map((line) => line._id).sort(), [...expected[index]].sort(), `/ws/tail: ${c.what}, query ${JSON.stringify(asks[index])}`);
    stats.tailLines += tail.lines.length;
    tail.socket.close();
  }
  everything.socket.close();
}

/**
 * A view with an alert, made by the scoped member: presence, immediate, trigger limit 1. Lines are
 * re-sent copies of stored lines (same content, new marker), in windows the test opens by moving
 * the alert clock: first only lines of the view outside the scope, then one inside; then a mixed
 * batch. The alert must count and send only the lines inside, and lines outside never fire it.
 */
async function checkAlert(c: Case, ask: Ask): Promise<void> {
  const path = `/hook-${c.scope.name}`;
  const channel = { integration: 'webhook', url: `${hooks.url}${path}`, method: 'post', operator: 'presence', triggerlimit: 1, triggerinterval: '1m', immediate: true, terminal: false };
  await post('/v1/config/view', c.member.headers(true), { name: `scoped ${c.scope.name}`, query: ask.query || 'ok OR -ok', channels: [channel] });
  const viewMatches = lineMatcher({ query: ask.query }, null);
  const candidates = [...rows.values()].filter((row) => viewMatches(row) && sources.has(markerOf(row.line)));
  const inside = rng.shuffle(candidates.filter(c.inside));
  const outside = rng.shuffle(candidates.filter((row) => !c.inside(row)));
  assert.ok(inside.length > 0, `${c.what}: some line of the view is inside the scope`);
  /** Sends copies of stored lines; the stored copies, request by request (each request is one evaluation). */
  const resend = async (picked: StoredLine[]) => {
    const sent = await ingestRequests(picked.map((row) => sources.get(markerOf(row.line))!), 'live');
    await readStored();
    return sent.map((carried) => carried.map((marker) => byMarker.get(marker)!));
  };
  // Window by window, the batches sent in it; what should fire is worked out from the stored copies.
  const windows: Array<{ start: number; batches: StoredLine[][] }> = [];
  const nextWindow = () => {
    clock += MINUTE;
    windows.push({ start: clock, batches: [] });
  };
  nextWindow();
  if (outside.length) {
    windows[0].batches.push(...(await resend(outside.slice(0, 5))));
    stats.alertOutsideAlone += windows[0].batches.flat().filter((row) => !c.inside(row)).length;
  }
  windows[0].batches.push(...(await resend(inside.slice(0, 1))));
  nextWindow();
  windows[1].batches.push(...(await resend(rng.shuffle([...inside.slice(0, 6), ...outside.slice(0, 6)]))));
  nextWindow();
  windows[2].batches.push(...(await resend(inside.slice(-1))));

  const expected = windows.map(({ start, batches }) => {
    let counted: StoredLine[] = [];
    for (const batch of batches) {
      counted = [...counted, ...batch.filter((row) => viewMatches(row) && c.inside(row))];
      if (counted.length >= 1) return { start, matches: counted.length, lines: counted.slice(0, 20).map((row) => markerOf(row.line)) };
    }
    return null;
  });
  const fires = expected.filter((fire) => fire !== null);
  const received = () => hooks.received.filter((hook) => hook.path === path).map((hook) => JSON.parse(hook.body));
  await eventually(() => (received().length >= fires.length ? true : undefined), 10_000, `the alerts of ${c.what}`);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const bodies = received()
    .map((body) => ({ start: Date.parse(body.window.start), matches: body.matches, lines: body.line_objects.map((line: LineRecord) => markerOf(line._line)) }))
    .sort((a, b) => a.start - b.start);
  for (const body of received()) assertInside(c, 'alert webhook', body.line_objects);
  assert.deepEqual(bodies, fires, `alert of a view made by the member: ${c.what}, view query ${JSON.stringify(ask.query)}`);
  stats.alertFires += bodies.length;
}

// ---------------------------------------------------------------------------------------------
// The scenarios
// ---------------------------------------------------------------------------------------------

/** Scopes of each shape, from generated searches that let some but not all of the stored lines through. */
function scenarios(): Scope[] {
  const one = () => nextSearch(0.1, 0.7);
  const a = one();
  const [b1, b2] = [one(), one()];
  const [c1, c2] = [one(), one()];
  const d = one();
  const [e1, e2, e3] = [nextSearch(0.05, 0.4), nextSearch(0.05, 0.4), nextSearch(0.05, 0.4)];
  const f = one();
  const list = [
    { name: 'one-search', groups: [{ name: 'g-one', access_scopes: a }], searches: [a] },
    { name: 'list', groups: [{ name: 'g-list', access_scopes: [b1, b2] }], searches: [b1, b2] },
    { name: 'two-groups', groups: [{ name: 'g-two-1', access_scopes: c1 }, { name: 'g-two-2', access_scopes: [c2] }], searches: [c1, c2] },
    { name: 'scoped-and-unscoped', groups: [{ name: 'g-mixed-scoped', access_scopes: d }, { name: 'g-mixed-open', access_scopes: '' }], searches: [d] },
    { name: 'three', groups: [{ name: 'g-three-1', access_scopes: [e1, e2] }, { name: 'g-three-2', access_scopes: e3 }], searches: [e1, e2, e3] },
    { name: 'negated', groups: [{ name: 'g-negated', access_scopes: `-(${f})` }], searches: [`-(${f})`] },
    { name: 'unscoped-group', groups: [{ name: 'g-open', access_scopes: ['', ' '] }], searches: null },
    { name: 'no-group', groups: [], searches: null },
  ];
  // Every scope must be a real limit: the union of its searches lets some lines through and keeps some out.
  for (const scope of list) {
    if (scope.searches === null) continue;
    const inside = insideOf(scope);
    const n = [...rows.values()].filter(inside).length;
    assert.ok(n > 0 && n < rows.size, `scope ${scope.name} (${JSON.stringify(scope.searches)}) lets ${n} of ${rows.size} lines through`);
  }
  return list;
}

function asks(count: number): Ask[] {
  const out: Ask[] = [];
  for (let i = 0; i < count; i++) {
    const query = rng.next() < 0.2 ? '' : nextSearch(0.2, 0.9);
    const ask: Ask = { query };
    if (rng.next() < 0.3) ask.apps = rng.shuffle(APPS).slice(0, 3);
    if (rng.next() < 0.2) ask.levels = rng.shuffle(LEVELS).slice(0, 2).map((level) => level.toLowerCase());
    if (rng.next() < 0.15) ask.hosts = rng.shuffle(HOSTS).slice(0, 3);
    if (rng.next() < 0.15) ask.tags = [rng.pick(['blue', 'green', 'eu'])];
    out.push(ask);
  }
  return out;
}

test(
  'no read path returns a line outside the scope, and each returns exactly what the key gets inside it',
  seeded(async () => {
    await ingest(fc.sample(rawArbitrary, { seed: SEED, numRuns: 240 }), 'stored');
    await readStored();
    assert.equal(rows.size, 240);
    for (const scope of scenarios()) {
      const groupIds: string[] = [];
      for (const group of scope.groups) groupIds.push((await post('/v1/config/groups', keyHeaders(), group)).json.id);
      const member = await server.signInAs(`${scope.name}@example.com`, 'member', { groups: groupIds });
      const c: Case = { scope, inside: insideOf(scope), member, what: `scope ${scope.name} ${JSON.stringify(scope.searches)}` };
      const scenarioAsks = asks(3);
      for (const ask of scenarioAsks) {
        const { all, inside } = await oracleLines(c, ask);
        if (scope.searches === null) assert.equal(inside.length, all.length);
        else {
          stats.scopedAsks++;
          if (inside.length > 0 && inside.length < all.length) stats.narrowed++;
          if (inside.length === 0) stats.emptyInside++;
        }
        await checkExports(c, ask, inside);
        await checkHistogram(c, ask, inside);
        await checkFacets(c, ask, inside);
        await checkPatterns(c, ask, inside);
        await checkFields(c, ask, inside);
        await checkBacktest(c, ask, inside);
        await checkCharts(c, ask, inside);
      }
      await checkUsage(c);
      await checkContext(c);
      const mailed = scenarioAsks[0];
      await checkEmailedExport(c, mailed, (await oracleLines(c, mailed)).inside);
      await checkTail(c, scenarioAsks);
      await checkAlert(c, scenarioAsks[1]);
    }
    // The checks above compared real answers: most scoped asks had lines both inside and outside the scope.
    assert.ok(stats.chartNamesHidden >= stats.scopedAsks / 4, `only ${stats.chartNamesHidden} charts of ${stats.scopedAsks} scoped asks hid a series the key sees`);
    assert.ok(stats.narrowed >= stats.scopedAsks / 2, `only ${stats.narrowed} of ${stats.scopedAsks} scoped asks were narrowed by their scope (${stats.emptyInside} empty)`);
    assert.ok(stats.contextOutside >= 15 && stats.contextInside >= 20, JSON.stringify(stats));
    assert.ok(stats.tailLines >= 20, `tails carried ${stats.tailLines} lines`);
    assert.ok(stats.alertOutsideAlone >= 5, `${stats.alertOutsideAlone} lines outside the scope were sent alone to a scoped alert`);
    assert.ok(stats.alertFires >= 16, `${stats.alertFires} alerts fired`);
  }),
);

test(
  'a change of groups holds from the very next request, and on an open tail within 5 s',
  seeded(async () => {
    const apps = ['switch-a', 'switch-b', 'switch-c'];
    const send = async (probe: string) => {
      const lines = apps.map((app) => ({ line: `switchword ${probe} ${app}`, app, timestamp: nextTime('live') }));
      const reply = await request(`${server.url}/logs/ingest?hostname=switch`, { method: 'POST', headers: { apikey: server.org.ingestionKey, 'content-type': 'application/json' }, body: JSON.stringify({ lines }) });
      assert.equal(reply.status, 200, reply.text);
    };
    const group = async (name: string, access_scopes: string) => (await post('/v1/config/groups', keyHeaders(), { name, access_scopes })).json.id as string;
    const groupA = await group('switch-a', 'app:switch-a');
    const groupB = await group('switch-b', 'app:switch-b');
    const member = await server.signInAs('switcher@example.com', 'readonly', { groups: [groupA] });
    await send('stored');

    /** The member's next /v1/export must be exactly the key's lines of these apps. */
    const nextRequestSees = async (visible: string[], what: string) => {
      const path = `/v1/export?from=${FROM}&to=${clock + 3_600_000}&query=switchword`;
      const mine = jsonLines((await get(path, member.headers())).text);
      const all = jsonLines((await get(path, keyHeaders())).text);
      assert.ok(all.length >= 3);
      assert.deepEqual(mine, all.filter((line) => visible.includes(line._app)), `the very next request after ${what}`);
    };
    const change = async (method: 'PUT' | 'PATCH', path: string, body: unknown) => {
      const reply = await request(`${server.url}${path}`, { method, headers: { ...keyHeaders(), 'content-type': 'application/json' }, body: JSON.stringify(body) });
      assert.equal(reply.status, 200, reply.text);
      return Date.now();
    };
    await nextRequestSees(['switch-a'], 'joining a scoped group');

    const tail = await openTail({ query: 'switchword' }, member.headers());
    const watch = { send, received: () => tail.lines, apps };
    const steps: Array<{ what: string; make: () => Promise<number>; after: string[] }> = [
      { what: 'moving to another scoped group', make: () => change('PUT', '/v1/config/members/switcher@example.com', { groups: [groupB] }), after: ['switch-b'] },
      { what: "changing the group's scope", make: () => change('PATCH', `/v1/config/groups/${groupB}`, { access_scopes: ['app:switch-c'] }), after: ['switch-c'] },
      { what: 'joining a second scoped group', make: () => change('PUT', '/v1/config/members/switcher@example.com', { groups: [groupA, groupB] }), after: ['switch-a', 'switch-c'] },
      { what: 'leaving every scoped group', make: () => change('PUT', '/v1/config/members/switcher@example.com?widen=true', { groups: [] }), after: apps },
      { what: 'joining a scoped group again', make: () => change('PUT', '/v1/config/members/switcher@example.com', { groups: [groupA] }), after: ['switch-a'] },
    ];
    let before = ['switch-a'];
    for (const [index, step] of steps.entries()) {
      const changedAt = await step.make();
      await nextRequestSees(step.after, step.what);
      const took = await awaitScopeSwitch({ ...watch, before, after: step.after, changedAt, label: `s${index}p` });
      assert.ok(took <= 5000, `${step.what}: the tail took ${took} ms`);
      before = step.after;
    }
    tail.socket.close();
  }),
);
