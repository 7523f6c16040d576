import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { NewAccount } from '../../accounts/accounts.js';
import { type TestServer, jsonLines, request, startTestServer } from '../../testing/harness.js';
import type { LogPattern, PatternsResponse } from '../../wire/types.js';

/**
 * Generated lines of known shapes, in a range and in the hour before it; the answer is compared
 * with export over the same search: each pattern's count, times, example and volume, and that
 * its query finds exactly its lines.
 */

let server: TestServer;
const HOUR = 3_600_000;
const START = Math.floor((Date.now() - 3 * HOUR) / HOUR) * HOUR;
const END = START + HOUR - 1;

/** A small seeded generator, so the lines are the same on every run. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

const NAMES = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank'];
const SHAPES: Array<{ template: string; make: (pick: () => number) => string; before: boolean }> = [
  { template: 'GET /api/users/<*> <*> <*>', make: (pick) => `GET /api/users/${Math.floor(pick() * 1000)} 200 ${Math.floor(pick() * 90)}ms`, before: true },
  { template: 'user <*> logged in from <*>', make: (pick) => `user ${NAMES[Math.floor(pick() * NAMES.length)]} logged in from 10.0.${Math.floor(pick() * 9)}.${Math.floor(pick() * 200)}`, before: true },
  {
    template: 'job <*> finished in <*> status=<*>',
    make: (pick) => `job ${[8, 4, 4, 4, 12].map((n) => Array.from({ length: n }, () => '0123456789abcdef'[Math.floor(pick() * 16)]).join('')).join('-')} finished in ${(pick() * 9).toFixed(2)}s status="done ${Math.floor(pick() * 3)}"`,
    before: true,
  },
  { template: 'cache miss key=<*> shard=<*>', make: (pick) => `cache miss key=${NAMES[Math.floor(pick() * NAMES.length)]} shard=${Math.floor(pick() * 4)}`, before: true },
  { template: 'disk quota exceeded on volume <*> by <*>', make: (pick) => `disk quota exceeded on volume vol${'abcd'[Math.floor(pick() * 4)]} by ${Math.floor(pick() * 100)}KB`, before: false },
];

interface Sent {
  shape: number;
  line: string;
  timestamp: number;
}

function generate(seed: number, count: number, from: number, span: number, withNew: boolean): Sent[] {
  const pick = random(seed);
  const sent: Sent[] = [];
  for (let i = 0; i < count; i++) {
    // Shapes get different weights (0: most), so the order by count is known.
    let shape = Math.min(SHAPES.length - 1, Math.floor(pick() * pick() * SHAPES.length * 1.4));
    if (!withNew && !SHAPES[shape].before) shape = 0;
    sent.push({ shape, line: SHAPES[shape].make(pick), timestamp: from + Math.floor(pick() * span) });
  }
  return sent;
}

const inRange = generate(7, 1500, START, HOUR, true);
const earlier = generate(11, 300, START - HOUR, HOUR, false);

async function ingest(org: NewAccount, lines: Sent[]): Promise<void> {
  for (let at = 0; at < lines.length; at += 500) {
    const reply = await request(`${server.url}/logs/ingest?hostname=web-1`, {
      method: 'POST',
      headers: { apikey: org.ingestionKey, 'content-type': 'application/json' },
      body: JSON.stringify({ lines: lines.slice(at, at + 500).map((sent) => ({ line: sent.line, timestamp: sent.timestamp, app: 'api' })) }),
    });
    assert.equal(reply.status, 200, reply.text);
  }
}

let other: NewAccount;

before(async () => {
  server = await startTestServer();
  await ingest(server.org, [...earlier, ...inRange]);
  // Another organisation gets the same lines in another order: its answer must be the same.
  other = await server.createOrg('reordered');
  await ingest(other, [...inRange].reverse().concat([...earlier].reverse()));
});
after(() => server.close());

const patterns = (params: string, key = server.org.serviceKey) =>
  request(`${server.url}/v1/viewer/patterns?from=${START}&to=${END}&${params}`, { headers: { servicekey: key } });

async function exported(query: string, key = server.org.serviceKey): Promise<Array<{ _line: string; _ts: number; _id: string }>> {
  const reply = await request(`${server.url}/v1/export?from=${START}&to=${END}&query=${encodeURIComponent(query)}`, { headers: { servicekey: key } });
  assert.equal(reply.status, 200, reply.text);
  return jsonLines(reply.text);
}

test('every line is counted once, in the pattern of its shape, and the counts agree with export', async () => {
  const reply = await patterns('limit=50&buckets=12');
  assert.equal(reply.status, 200, reply.text);
  const answer = reply.json as PatternsResponse;
  assert.equal(answer.lines, inRange.length);
  assert.equal((await exported('')).length, answer.lines);
  assert.deepEqual(answer.others, { patterns: 0, lines: 0 });
  assert.equal(answer.patterns.reduce((sum, pattern) => sum + pattern.lines, 0), answer.lines);
  const expected = SHAPES.map((shape, index) => ({ template: shape.template, lines: inRange.filter((sent) => sent.shape === index) }))
    .filter((shape) => shape.lines.length > 0)
    .sort((a, b) => b.lines.length - a.lines.length);
  assert.deepEqual(answer.patterns.map((pattern) => [pattern.template, pattern.lines]), expected.map((shape) => [shape.template, shape.lines.length]));
  for (const [at, pattern] of answer.patterns.entries()) {
    const own = expected[at].lines;
    assert.equal(pattern.share, pattern.lines / answer.lines);
    assert.equal(pattern.first, Math.min(...own.map((sent) => sent.timestamp)));
    assert.equal(pattern.last, Math.max(...own.map((sent) => sent.timestamp)));
    assert.ok(own.some((sent) => sent.line === pattern.example && sent.timestamp === pattern.first), pattern.example);
    assert.equal(pattern.volume.length, 12);
    assert.equal(pattern.volume.reduce((sum, lines) => sum + lines, 0), pattern.lines);
    const perBucket = new Array(12).fill(0);
    for (const sent of own) perBucket[Math.floor((sent.timestamp - START) / answer.interval)]++;
    assert.deepEqual(pattern.volume, perBucket);
    // The shapes share no constant phrase, so each query is tight: export finds exactly its lines.
    const found = await exported(pattern.query);
    assert.deepEqual(found.map((record) => record._line).sort(), own.map((sent) => sent.line).sort(), pattern.query);
  }
});

test('a pattern none of whose lines came in the window before the range is new', async () => {
  const answer = (await patterns('')).json as PatternsResponse;
  assert.deepEqual(answer.before, { from: START - HOUR, to: START - 1 });
  const marks = Object.fromEntries(answer.patterns.map((pattern) => [pattern.template, pattern.new]));
  assert.deepEqual(marks, Object.fromEntries(SHAPES.filter((_, index) => inRange.some((sent) => sent.shape === index)).map((shape) => [shape.template, !shape.before])));
  // Over a range that starts before the hour before (nothing earlier), every pattern is new.
  const wide = await request(`${server.url}/v1/viewer/patterns?from=${START - HOUR}&to=${END}`, { headers: { servicekey: server.org.serviceKey } });
  assert.ok((wide.json as PatternsResponse).patterns.every((pattern) => pattern.new));
});

test('the same lines give the same patterns and ids, whatever order they came in', async () => {
  const first = (await patterns('')).json as PatternsResponse;
  const again = (await patterns('')).json as PatternsResponse;
  assert.deepEqual(again, first);
  const reordered = (await patterns('', other.serviceKey)).json as PatternsResponse;
  const shape = (answer: PatternsResponse) => answer.patterns.map(({ id, template, lines, first, last, query, new: isNew, volume }) => ({ id, template, lines, first, last, query, isNew, volume }));
  assert.deepEqual(shape(reordered), shape(first));
  // A narrower search keeps a template's id.
  const narrow = (await patterns(`query=${encodeURIComponent('"logged in"')}`)).json as PatternsResponse;
  assert.equal(narrow.patterns.length, 1);
  assert.equal(narrow.patterns[0].id, first.patterns.find((pattern: LogPattern) => pattern.template === narrow.patterns[0].template)?.id);
});

test('limit keeps the most frequent patterns and counts the rest', async () => {
  const all = (await patterns('')).json as PatternsResponse;
  const two = (await patterns('limit=2')).json as PatternsResponse;
  assert.deepEqual(two.patterns.map((pattern) => pattern.id), all.patterns.slice(0, 2).map((pattern) => pattern.id));
  assert.deepEqual(two.others, { patterns: all.patterns.length - 2, lines: all.patterns.slice(2).reduce((sum, pattern) => sum + pattern.lines, 0) });
  assert.equal(two.lines, all.lines);
});

test('bad parameters get a 400 naming them; another organisation gets nothing', async () => {
  for (const params of ['limit=0', 'limit=ten', 'buckets=0', 'buckets=-1', 'limit=1&limit=2', 'query=(disk']) {
    const reply = await patterns(params);
    assert.equal(reply.status, 400, `${params}: ${reply.text}`);
    assert.match(reply.json.error, /limit|buckets|position|more than once/, params);
  }
  const reversed = await request(`${server.url}/v1/viewer/patterns?from=${END}&to=${START}`, { headers: { servicekey: server.org.serviceKey } });
  assert.equal(reversed.status, 400);
  assert.equal((await patterns('', 'nope')).status, 401);
  const empty = await server.createOrg('empty');
  const reply = await patterns('', empty.serviceKey);
  assert.equal(reply.status, 200);
  assert.deepEqual({ lines: reply.json.lines, patterns: reply.json.patterns }, { lines: 0, patterns: [] });
});
