import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { RESERVED_JSON_KEYS } from '../store/reserved-keys.js';
import { type TestServer, jsonLines, request, startTestServer } from '../testing/harness.js';

/**
 * A graph's series against what export gives for the same search: generated lines (JSON fields,
 * meta, plain text, values that are not numbers, lines without the field), each measure and
 * breakdown computed here in JavaScript from GET /v1/export's records, and compared with the
 * server's answer: counts exactly, sums, minima, maxima and percentiles exactly (the values are
 * whole numbers), averages to 1e-9. Runs on chDB and on the ClickHouse server path.
 */

const HOUR = 3_600_000;
const BASE = Math.floor(Date.now() / HOUR) * HOUR - 3 * HOUR;
const FROM = BASE;
const TO = BASE + 3 * HOUR - 1;

let server: TestServer;
const key = () => ({ servicekey: server.org.serviceKey });

function call(method: string, path: string, body?: unknown, headers: Record<string, string> = key()) {
  return request(`${server.url}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** A small deterministic random source, so that a failure can be run again. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] };
}

const APPS = ['web', 'web', 'web', 'api', 'api', 'worker', 'cron'];
const CUSTOMERS = ['acme', 'globex', 'initech', 'umbrella'];

before(async () => {
  server = await startTestServer();
  const rng = random(40);
  const lines: Array<Record<string, unknown>> = [];
  for (let i = 0; i < 900; i++) {
    // The last half hour stays empty, so some buckets have no lines.
    const timestamp = BASE + rng.int(2.5 * HOUR);
    const app = rng.pick(APPS);
    const level = rng.next() < 0.3 ? 'error' : 'info';
    const roll = rng.next();
    let line: string;
    if (roll < 0.1) line = `plain text line ${i} without fields`;
    else {
      const fields: Record<string, unknown> = { status: rng.pick([200, 200, 200, 404, 500]), path: rng.pick(['/a', '/b', '/c', '/d']) };
      // Mostly a number, now and then a text or nothing: only numbers are measured.
      const kind = rng.next();
      if (kind < 0.85) fields.duration = 1 + rng.int(5000);
      else if (kind < 0.92) fields.duration = 'slow';
      line = JSON.stringify({ message: `request ${i}`, ...fields });
    }
    const meta = rng.next() < 0.7 ? { customer: rng.pick(CUSTOMERS), bytes: rng.int(100_000) } : undefined;
    lines.push({ line, app, level, timestamp, meta });
  }
  // A customer only the cron app has: outside a scope of app:web, it must never be named.
  lines.push({ line: JSON.stringify({ message: 'secret', duration: 7 }), app: 'cron', level: 'info', timestamp: BASE + 10 * 60_000, meta: { customer: 'only-cron-customer', bytes: 5 } });
  for (let at = 0; at < lines.length; at += 300) {
    const reply = await call('POST', '/logs/ingest?hostname=chart-host', { lines: lines.slice(at, at + 300) }, { apikey: server.org.ingestionKey });
    assert.equal(reply.status, 200, reply.text);
  }
});
after(() => server?.close());

// ---------------------------------------------------------------------------------------------
// The reference: a graph computed from exported records

type Rec = Record<string, any>;

interface Graph {
  title?: string;
  query?: string;
  apps?: string[];
  levels?: string[];
  measure: { type: string; field?: string };
  breakdown?: { field: string; limit: number };
}

async function exported(graph: Graph, from: number, to: number): Promise<Rec[]> {
  const params = new URLSearchParams({ from: String(from), to: String(to), query: graph.query ?? '' });
  if (graph.apps?.length) params.set('apps', graph.apps.join(','));
  if (graph.levels?.length) params.set('levels', graph.levels.join(','));
  const reply = await call('GET', `/v1/export?${params}`);
  assert.equal(reply.status, 200, reply.text);
  return jsonLines(reply.text);
}

/** A record's field as search names it: its value, or undefined. */
function valueOf(record: Rec, field: string): unknown {
  if (field === 'app') return record._app || undefined;
  if (field === 'host') return record._host || undefined;
  if (field === 'level') return record.level || undefined;
  if (field === 'size') return record._mezmo_line_size;
  if (field.startsWith('meta.')) return record._metaUnindexed ? undefined : record.meta?.[field.slice(5)];
  // A JSON line's reserved root keys (status, path) are stored, and exported, with an underscore.
  return record[RESERVED_JSON_KEYS.includes(field) ? `_${field}` : field];
}
const numberOf = (record: Rec, field: string) => {
  const value = valueOf(record, field);
  return typeof value === 'number' ? value : undefined;
};
const textOf = (record: Rec, field: string) => {
  const value = valueOf(record, field);
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
};

function measure(records: Rec[], type: string, field?: string): number | null {
  if (type === 'count') return records.length;
  if (records.length === 0) return null;
  if (type === 'unique') return new Set(records.map((record) => textOf(record, field!)).filter((value) => value !== undefined)).size;
  const values = records.map((record) => numberOf(record, field!)).filter((value): value is number => value !== undefined);
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  switch (type) {
    case 'sum':
      return values.reduce((sum, value) => sum + value, 0);
    case 'avg':
      return values.reduce((sum, value) => sum + value, 0) / values.length;
    case 'min':
      return sorted[0];
    case 'max':
      return sorted[sorted.length - 1];
    default: {
      // Nearest rank, as documented: the value at position ⌊p·n⌋ of the sorted values.
      const p = Number(type.slice(1)) / 100;
      return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
    }
  }
}

function expectedChart(records: Rec[], graph: Graph, from: number, to: number, buckets: number) {
  const span = to - from + 1;
  const interval = Math.max(1, Math.ceil(span / buckets));
  const count = Math.ceil(span / interval);
  const points = (subset: Rec[]) =>
    Array.from({ length: count }, (_, at) => {
      const start = from + at * interval;
      const inside = subset.filter((record) => record._ts >= start && record._ts < start + interval);
      return [start, inside.length === 0 && graph.measure.type !== 'count' ? null : measure(inside, graph.measure.type, graph.measure.field)];
    });
  if (!graph.breakdown) return { from, to, interval, series: [{ name: graph.title, points: points(records) }] };
  const field = graph.breakdown.field;
  const lines = new Map<string, number>();
  for (const record of records) {
    const value = textOf(record, field);
    if (value !== undefined) lines.set(value, (lines.get(value) ?? 0) + 1);
  }
  const top = [...lines].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0)).slice(0, graph.breakdown.limit).map(([value]) => value);
  const series: Array<{ name: string; points: unknown[]; other?: true }> = top.map((value) => ({ name: value, points: points(records.filter((record) => textOf(record, field) === value)) }));
  const rest = records.filter((record) => !top.includes(textOf(record, field)!));
  if (rest.length) series.push({ name: 'other', points: points(rest), other: true });
  return { from, to, interval, series };
}

/** Equal, but for averages, which may differ in the last bits by the order of summing. */
function assertChart(actual: any, expected: any, what: string) {
  assert.deepEqual({ ...actual, series: actual.series.map((s: any) => s.name) }, { ...expected, series: expected.series.map((s: any) => s.name) }, `${what}: the series`);
  actual.series.forEach((series: any, at: number) => {
    assert.equal(series.other, expected.series[at].other, `${what}: ${series.name} is other or not`);
    series.points.forEach(([ts, value]: [number, number | null], point: number) => {
      const [wantTs, want] = expected.series[at].points[point];
      assert.equal(ts, wantTs, `${what}: ${series.name} point ${point} time`);
      if (want === null || value === null || Number.isInteger(want)) assert.equal(value, want, `${what}: ${series.name} at ${point}`);
      else assert.ok(Math.abs(value - want) <= 1e-9 * Math.max(1, Math.abs(want)), `${what}: ${series.name} at ${point}: ${value} against ${want}`);
    });
  });
}

async function chart(graph: Graph, from = FROM, to = TO, buckets = 12, headers: Record<string, string> = key()) {
  const reply = await call('POST', '/v1/viewer/chart', { ...graph, from, to, buckets }, headers);
  assert.equal(reply.status, 200, reply.text);
  return reply.json;
}

// ---------------------------------------------------------------------------------------------

describe('every measure agrees with export over the same search', () => {
  const graphs: Graph[] = [
    { title: 'lines', measure: { type: 'count' } },
    { title: 'errors', query: 'level:error', measure: { type: 'count' } },
    ...['sum', 'avg', 'min', 'max', 'p50', 'p90', 'p95', 'p99'].map((type) => ({ title: `${type} duration`, measure: { type, field: 'duration' } })),
    { title: 'paths', measure: { type: 'unique', field: 'path' } },
    { title: 'customers', measure: { type: 'unique', field: 'meta.customer' } },
    { title: 'bytes', apps: ['web', 'api'], measure: { type: 'sum', field: 'meta.bytes' } },
    { title: 'p99 bytes', measure: { type: 'p99', field: 'meta.bytes' } },
    { title: 'biggest line', levels: ['error'], measure: { type: 'max', field: 'size' } },
    { title: 'slow avg', query: 'duration:>1000', measure: { type: 'avg', field: 'duration' } },
  ];
  for (const graph of graphs) {
    test(`${graph.title} (${graph.measure.type}${graph.measure.field ? ` of ${graph.measure.field}` : ''})`, async () => {
      const records = await exported(graph, FROM, TO);
      assert.ok(records.length > 50, `the search finds lines: ${records.length}`);
      for (const buckets of [12, 7]) assertChart(await chart(graph, FROM, TO, buckets), expectedChart(records, graph, FROM, TO, buckets), `${graph.title}, ${buckets} buckets`);
    });
  }

  test('the counts add up to the lines export finds', async () => {
    const records = await exported({ measure: { type: 'count' } }, FROM, TO);
    const data = await chart({ measure: { type: 'count' } });
    assert.equal(data.series[0].points.reduce((sum: number, [, value]: [number, number]) => sum + value, 0), records.length);
    assert.equal(records.length, 901);
  });
});

describe('breakdowns', () => {
  const graphs: Graph[] = [
    { title: 'lines by app', measure: { type: 'count' }, breakdown: { field: 'app', limit: 2 } },
    { title: 'p95 by app', measure: { type: 'p95', field: 'duration' }, breakdown: { field: 'app', limit: 3 } },
    { title: 'errors by status', query: 'level:error', measure: { type: 'count' }, breakdown: { field: 'status', limit: 2 } },
    { title: 'customers by app', measure: { type: 'unique', field: 'meta.customer' }, breakdown: { field: 'app', limit: 5 } },
    { title: 'bytes by customer', measure: { type: 'sum', field: 'meta.bytes' }, breakdown: { field: 'meta.customer', limit: 2 } },
  ];
  for (const graph of graphs) {
    test(graph.title!, async () => {
      const records = await exported(graph, FROM, TO);
      const expected = expectedChart(records, graph, FROM, TO, 12);
      assertChart(await chart(graph), expected, graph.title!);
      assert.ok(expected.series.length >= 2);
    });
  }

  test('the top values are ranked by lines; the rest, and the lines without the field, are `other`', async () => {
    const data = await chart({ title: 'by status', measure: { type: 'count' }, breakdown: { field: 'status', limit: 1 } });
    assert.deepEqual(data.series.map((series: { name: string }) => series.name), ['200', 'other']);
    const total = (series: { points: Array<[number, number]> }) => series.points.reduce((sum, [, value]) => sum + value, 0);
    const records = await exported({ measure: { type: 'count' } }, FROM, TO);
    assert.equal(total(data.series[0]), records.filter((record) => record._status === 200).length);
    // Plain text lines have no status: they are in `other`, so the series add up to every line.
    assert.equal(total(data.series[0]) + total(data.series[1]), records.length);
    // No other series when the top values are all there is.
    const all = await chart({ title: 'by app', measure: { type: 'count' }, breakdown: { field: 'app', limit: 20 } });
    assert.deepEqual(all.series.map((series: { name: string }) => series.name).sort(), ['api', 'cron', 'web', 'worker']);
  });
});

describe('buckets, as the histogram has them', () => {
  test('a bucket without lines is 0 for a count and null for other measures', async () => {
    const from = BASE - HOUR;
    const count = await chart({ title: 'c', measure: { type: 'count' } }, from, TO, 16);
    const p99 = await chart({ title: 'p', measure: { type: 'p99', field: 'duration' } }, from, TO, 16);
    // The hour before the lines, and the last half hour, have none.
    assert.deepEqual(count.series[0].points.slice(0, 4).map(([, value]: [number, number]) => value), [0, 0, 0, 0]);
    assert.deepEqual(p99.series[0].points.slice(0, 4).map(([, value]: [number, number]) => value), [null, null, null, null]);
    assert.equal(count.series[0].points.at(-1)[1], 0);
    assert.equal(p99.series[0].points.at(-1)[1], null);
    assert.ok(p99.series[0].points.some(([, value]: [number, number | null]) => typeof value === 'number' && value > 0));
  });

  test('the interval and the bucket starts are the histogram\'s, for any range and bucket count', async () => {
    for (const [from, to, buckets] of [[FROM, TO, 60], [FROM, FROM + 1, 60], [FROM, FROM + 10_000, 3], [FROM, TO, 1000], [FROM, FROM, 5]]) {
      const histogram = await call('GET', `/v1/histogram?from=${from}&to=${to}&buckets=${buckets}`);
      const data = await chart({ measure: { type: 'count' } }, from, to, buckets);
      assert.equal(data.interval, histogram.json.interval);
      assert.deepEqual(
        data.series[0].points.map(([ts, value]: [number, number]) => [ts, value]),
        histogram.json.buckets.map((bucket: { ts: number; count: number }) => [bucket.ts, bucket.count]),
        `${from}..${to} in ${buckets}`,
      );
      assert.equal(data.series[0].name, 'count', 'an unsaved graph without a title is named by its measure');
    }
  });

  test('from and to in seconds work as the other read APIs take them', async () => {
    const seconds = await chart({ measure: { type: 'count' } }, Math.floor(FROM / 1000), Math.floor(TO / 1000));
    assert.equal(seconds.from, FROM);
    assert.equal(seconds.to, Math.floor(TO / 1000) * 1000 + 999);
  });
});

describe('saved graphs', () => {
  test("a board's graph answers what the same graph answers unsaved", async () => {
    const graphs = [
      { title: 'errors by app', query: 'level:error', measure: { type: 'count' }, breakdown: { field: 'app', limit: 2 } },
      { title: 'p95', measure: { type: 'p95', field: 'duration' } },
    ];
    const board = await call('POST', '/v1/config/board', { name: 'Saved', graphs });
    assert.equal(board.status, 200, board.text);
    for (const [at, graph] of board.json.graphs.entries()) {
      const saved = await call('GET', `/v1/board/${board.json.boardId}/graph/${graph.graphId}/data?from=${FROM}&to=${TO}&buckets=24`);
      assert.equal(saved.status, 200, saved.text);
      assert.deepEqual(saved.json, await chart(graphs[at], FROM, TO, 24));
    }
    const missing = await call('GET', `/v1/board/${board.json.boardId}/graph/nothing/data?from=${FROM}&to=${TO}`);
    assert.equal(missing.status, 404);
    assert.equal(missing.json.error, 'No such graph.');
    const noRange = await call('GET', `/v1/board/${board.json.boardId}/graph/${board.json.graphs[0].graphId}/data`);
    assert.equal(noRange.status, 400);
    assert.match(noRange.json.error, /Missing required parameter "from"/);
  });
});

describe('POST /v1/viewer/chart refuses what it cannot chart, with a clear 400', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['no range', { measure: { type: 'count' } }, /Missing required parameter "from"/],
    ['a reversed range', { measure: { type: 'count' }, from: TO, to: FROM }, /The time range is reversed/],
    ['no measure', { from: FROM, to: TO }, /"measure" is required/],
    ['an unknown measure', { measure: { type: 'p42', field: 'duration' }, from: FROM, to: TO }, /"measure.type" must be one of/],
    ['a max without a field', { measure: { type: 'max' }, from: FROM, to: TO }, /"measure.field" is required/],
    ['an average of the app', { measure: { type: 'avg', field: 'app' }, from: FROM, to: TO }, /"measure.field" is "app", which holds text/],
    ['a broken query', { query: 'a OR', measure: { type: 'count' }, from: FROM, to: TO }, /"query" is not a valid search/],
    ['buckets that are not a number', { measure: { type: 'count' }, from: FROM, to: TO, buckets: 'many' }, /Parameter "buckets" must be a positive whole number/],
    ['an array', [], /Send a graph as a JSON object/],
  ];
  for (const [what, body, message] of cases) {
    test(what, async () => {
      const reply = await call('POST', '/v1/viewer/chart', body);
      assert.equal(reply.status, 400, reply.text);
      assert.match(reply.json.error, message);
    });
  }
});

describe('scopes', () => {
  test("a scoped member's series come from lines inside the scope only, breakdown names included", async () => {
    const group = await call('POST', '/v1/config/groups', { name: 'web only', access_scopes: 'app:web' });
    assert.equal(group.status, 200, group.text);
    const member = await server.signInAs('chart-scoped@example.com', 'member', { groups: [group.json.id] });
    const byCustomer: Graph = { title: 'by customer', measure: { type: 'count' }, breakdown: { field: 'meta.customer', limit: 20 } };
    const everyone = await chart(byCustomer);
    assert.ok(everyone.series.some((series: { name: string }) => series.name === 'only-cron-customer'), 'the key sees the customer only cron has');
    const scoped = await chart(byCustomer, FROM, TO, 12, member.headers(true));
    assert.ok(!JSON.stringify(scoped).includes('only-cron-customer'), 'a value only outside the scope is never a series');
    const inside = (await exported({ ...byCustomer, query: 'app:web' }, FROM, TO));
    assertChart(scoped, expectedChart(inside, byCustomer, FROM, TO, 12), 'scoped breakdown');
    const byApp = await chart({ title: 'by app', measure: { type: 'count' }, breakdown: { field: 'app', limit: 20 } }, FROM, TO, 12, member.headers(true));
    assert.deepEqual(byApp.series.map((series: { name: string }) => series.name), ['web']);
  });
});
