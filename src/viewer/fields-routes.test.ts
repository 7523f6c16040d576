/**
 * GET /v1/viewer/fields on generated lines of every kind (nginx and logfmt text parsed at ingest,
 * a custom parsing rule, JSON lines with nested fields, meta, meta left unindexed by a type clash,
 * tags), checked against an oracle counted from GET /v1/export of the same search: every field
 * and value count, the top values, the types and the numeric stats. Each listed value, added to
 * the search as `name:value`, finds exactly its count of lines. Runs on embedded chDB and, with
 * LOGSTEAD_TEST_EXECUTOR=clickhouse, on the ClickHouse server path.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { wordMatcher } from '../query/text-match.js';
import { assertFieldsAgree, countFields } from '../testing/field-oracle.js';
import { type TestServer, eventually, jsonLines, request, startTestServer } from '../testing/harness.js';
import type { FieldSummary, FieldsResponse } from '../wire/types.js';
import { MAX_TOP } from './fields-routes.js';

let server: TestServer;
const FROM = Date.now() - 3_600_000;
const TO = Date.now() + 60_000;

/** A seeded generator, so a failure reproduces. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function clfTime(ms: number): string {
  const date = new Date(ms);
  const month = date.toUTCString().split(' ')[2];
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(date.getUTCDate())}/${month}/${date.getUTCFullYear()}:${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`;
}

async function send(hostname: string, lines: Array<Record<string, unknown>>, tags = '') {
  const reply = await request(`${server.url}/logs/ingest?hostname=${hostname}${tags ? `&tags=${tags}` : ''}`, {
    method: 'POST',
    headers: { apikey: server.org.ingestionKey, 'content-type': 'application/json' },
    body: JSON.stringify({ lines }),
  });
  assert.equal(reply.status, 200, reply.text);
}

before(async () => {
  server = await startTestServer();
  const admin = await server.signInAs('admin@example.com', 'admin');
  const rule = await request(`${server.url}/v1/config/parsers`, {
    method: 'POST',
    headers: { ...admin.headers(true), 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'checkout', apps: ['shop'], hosts: [], query: '', pattern: '^order (?P<order_id>\\d+) took (?P<took_ms>\\d+)ms', types: { order_id: 'string', took_ms: 'number' } }),
  });
  assert.equal(rule.status, 200, rule.text);
  const next = random(40);
  const pick = <T>(items: T[]) => items[Math.floor(next() * items.length)];
  const at = (i: number) => Date.now() - 1_800_000 + i * 1000;
  await send(
    'edge-1',
    Array.from({ length: 120 }, (_, i) => ({
      line: `10.0.0.${i % 7} - - [${clfTime(at(i))}] "${pick(['GET', 'GET', 'POST'])} ${pick(['/cart', '/login', '/orders'])} HTTP/1.1" ${pick([200, 200, 200, 404, 500, 502])} ${Math.floor(next() * 5000)} "-" "curl/8.5" ${(next() * 2).toFixed(3)}`,
      app: 'nginx',
      timestamp: at(i),
    })),
    'prod',
  );
  await send(
    'worker-1',
    Array.from({ length: 80 }, (_, i) => ({
      line: `at=${pick(['info', 'warn'])} msg="${pick(['payment ok', 'payment declined'])}" status=${pick([200, 402])} duration_ms=${Math.floor(next() * 900)} customer=${pick(['acme', 'globex', 'initech'])}`,
      app: 'billing',
      timestamp: at(i),
    })),
    'prod,eu',
  );
  await send(
    'api-1',
    Array.from({ length: 90 }, (_, i) => ({
      line: JSON.stringify({
        message: `checkout ${i}`,
        user: { id: 40 + (i % 4), plan: { tier: pick(['free', 'pro']), seats: { max: 5 } } },
        ok: next() < 0.8,
        // Numbers on most lines, text on some: a number, its stats over the numbers only.
        latency_ms: i % 10 === 0 ? 'n/a' : Math.floor(next() * 300),
        note: i % 3 === 0 ? null : 'x',
        empty: {},
        list: [i % 2, 'a'],
      }),
      app: 'api',
      timestamp: at(i),
      // The 85th line's customer is a number where the others' is text: its meta is kept as text only.
      meta: { customer: i === 85 ? 5 : pick(['acme', 'globex']), region: pick(['eu-1', 'us-2']) },
    })),
  );
  await send('shop-1', Array.from({ length: 30 }, (_, i) => ({ line: `order ${100 + (i % 6)} took ${10 * i}ms`, app: 'shop', timestamp: at(i), env: i % 2 ? 'staging' : '' })));
});
after(() => server?.close());

const fields = (params: Record<string, string> = {}, key = server.org.serviceKey) =>
  request(`${server.url}/v1/viewer/fields?${new URLSearchParams({ from: String(FROM), to: String(TO), ...params })}`, { headers: { servicekey: key } });

async function exported(query: string): Promise<Array<Record<string, any>>> {
  const reply = await request(`${server.url}/v1/export?${new URLSearchParams({ from: String(FROM), to: String(TO), query })}`, { headers: { servicekey: server.org.serviceKey } });
  assert.equal(reply.status, 200, reply.text);
  return jsonLines(reply.text);
}

const byName = (answer: FieldsResponse, name: string): FieldSummary => {
  const field = answer.fields.find((candidate) => candidate.name === name);
  assert.ok(field, `${name} is listed`);
  return field;
};

describe('GET /v1/viewer/fields', () => {
  test('lists the fields of lines in every format, named as search names them, typed, with stats for numbers', async () => {
    const reply = await fields();
    assert.equal(reply.status, 200, reply.text);
    const answer: FieldsResponse = reply.json;
    assert.equal(answer.lines, 320);
    assert.deepEqual(answer.fields.slice(0, 5).map((field) => field.name), ['host', 'app', 'level', 'tag', 'env'], 'built-in fields first');
    assert.deepEqual(byName(answer, 'app').top, [{ value: 'nginx', lines: 120 }, { value: 'api', lines: 90 }, { value: 'billing', lines: 80 }, { value: 'shop', lines: 30 }]);
    assert.deepEqual(byName(answer, 'tag'), { name: 'tag', type: 'string', lines: 200, top: [{ value: 'prod', lines: 200 }, { value: 'eu', lines: 80 }] });
    // status: nginx's and logfmt's, both stored as _status.
    const status = byName(answer, 'status');
    assert.equal(status.type, 'number');
    assert.equal(status.lines, 200);
    assert.ok(status.stats && status.stats.min === 200 && status.stats.max === 502);
    assert.equal(byName(answer, 'method').type, 'string');
    assert.equal(byName(answer, 'response_time').type, 'number');
    assert.equal(byName(answer, 'took_ms').type, 'number', "a parsing rule's field");
    assert.equal(byName(answer, 'order_id').type, 'string', 'typed string by the rule');
    assert.equal(byName(answer, 'ok').type, 'boolean');
    assert.equal(byName(answer, 'user.plan.tier').type, 'string', 'three levels deep');
    assert.deepEqual(byName(answer, 'user.plan.seats').top, [{ value: '{"max":5}', lines: 90 }], 'deeper down, one value');
    const latency = byName(answer, 'latency_ms');
    assert.equal(latency.type, 'number', 'mostly numbers');
    assert.equal(latency.lines, 90);
    assert.ok(latency.stats!.max < 300, 'stats over the numbers only');
    assert.deepEqual(byName(answer, 'note').top.map((value) => value.value).sort(), ['null', 'x']);
    assert.equal(byName(answer, 'meta.customer').lines, 89, 'the line whose meta clashed is not counted');
    assert.ok(!answer.fields.some((field) => field.name === 'message' && field.lines !== 90));
  });

  test('every count agrees with an export of the same search', async () => {
    for (const query of ['', 'status:>=400', 'app:api ok:true', 'payment', '-app:nginx']) {
      const reply = await fields({ query, top: '8' });
      assert.equal(reply.status, 200, reply.text);
      assertFieldsAgree(reply.json, await exported(query), 8);
    }
  });

  test('takes the filters: apps, hosts, levels, tags', async () => {
    const reply = await fields({ apps: 'billing', tags: 'eu' });
    assertFieldsAgree(reply.json, (await exported('')).filter((record) => record._app === 'billing' && record.tags?.includes('eu')), 5);
    assert.equal((await fields({ hosts: 'nobody' })).json.lines, 0);
    assert.deepEqual((await fields({ hosts: 'nobody' })).json.fields, []);
  });

  test('each listed value, added to the search as name:value, finds exactly its lines', async () => {
    const answer: FieldsResponse = (await fields({ top: '4' })).json;
    const values = countFields(await exported(''));
    let checked = 0;
    for (const field of answer.fields) {
      for (const value of field.top) {
        // Values the language reads back as the same value go bare; others as a phrase.
        const term = /^[A-Za-z0-9_./-]+$/.test(value.value) && !/^-/.test(value.value) ? value.value : `"${value.value.replace(/["\\]/g, '\\$&')}"`;
        // Search matches a word at a word start, by prefix: a value found inside another value of
        // the field (`checkout 1` in `checkout 10`) finds that one's lines too. Numbers compare as numbers.
        const matches = wordMatcher(value.value, '');
        const isNumber = (candidate: string) => /^-?\d+(\.\d+)?$/.test(candidate);
        const prefixOfAnother = [...values.get(field.name)!.values.keys()].some((other) => other !== value.value && matches(other) && !(isNumber(value.value) && isNumber(other)));
        if (prefixOfAnother) continue;
        const found = await exported(`${field.name}:${term}`);
        assert.equal(found.length, value.lines, `${field.name}:${term}`);
        checked++;
      }
    }
    assert.ok(checked > 60, `checked ${checked} values`);
  });

  test('refuses bad parameters with 400 and a message', async () => {
    for (const top of ['0', '-1', 'five', String(MAX_TOP + 1), '2.5']) {
      const reply = await fields({ top });
      assert.equal(reply.status, 400, `top=${top}`);
      assert.match(reply.json.error, /"top" must be a whole number from 1 to 100/);
    }
    assert.equal((await fields({ top: String(MAX_TOP) })).status, 200);
    const unclosed = await fields({ query: '(timeout' });
    assert.equal(unclosed.status, 400);
    assert.equal(unclosed.json.position, 8);
    const missing = await request(`${server.url}/v1/viewer/fields?to=${TO}`, { headers: { servicekey: server.org.serviceKey } });
    assert.equal(missing.status, 400);
    const twice = await request(`${server.url}/v1/viewer/fields?from=${FROM}&to=${TO}&top=1&top=2`, { headers: { servicekey: server.org.serviceKey } });
    assert.equal(twice.status, 400);
    assert.equal((await fields({}, 'not-a-key')).status, 401);
  });

  test('a request the viewer abandons abandons its queries, and the next answers in full', async () => {
    // The engine's queries for the sidebar are watched, to see the signal the route gives them;
    // the first request's are held until the viewer has left, so that it surely leaves first.
    const engine = server.running.engine;
    const signals: AbortSignal[] = [];
    const rows = engine.rows.bind(engine);
    engine.rows = async (sql, params, options) => {
      const signal = options?.signal;
      if (signal) signals.push(signal);
      if (signal && signals.length <= 2) await eventually(() => (signal.aborted ? true : undefined), 10_000, 'the viewer gone');
      return rows(sql, params, options);
    };
    try {
      const leaving = new AbortController();
      const abandoned = fetch(`${server.url}/v1/viewer/fields?${new URLSearchParams({ from: String(FROM), to: String(TO) })}`, { headers: { servicekey: server.org.serviceKey }, signal: leaving.signal });
      await eventually(() => (signals.length === 2 ? true : undefined), 10_000, 'the two queries under way');
      assert.ok(signals.every((signal) => !signal.aborted), 'nothing abandoned while the viewer waits');
      leaving.abort();
      await assert.rejects(abandoned, { name: 'AbortError' });
      await eventually(() => (signals.every((signal) => signal.aborted) ? true : undefined), 10_000, 'the queries abandoned');
      const next = await fields();
      assert.equal(next.status, 200, next.text);
      assert.equal(next.json.lines, 320);
      assert.equal(signals.length, 4);
      assert.ok(signals.slice(2).every((signal) => !signal.aborted), 'an answered request abandons nothing');
    } finally {
      engine.rows = rows;
    }
  });

  test('a readonly member may ask; another organisation gets none of these lines', async () => {
    const reader = await server.signInAs('reader@example.com', 'readonly');
    const asReader = await request(`${server.url}/v1/viewer/fields?from=${FROM}&to=${TO}`, { headers: reader.headers() });
    assert.equal(asReader.status, 200, asReader.text);
    assert.equal(asReader.json.lines, 320);
    const other = await server.createOrg('Other');
    const theirs = await fields({}, other.serviceKey);
    assert.equal(theirs.status, 200);
    assert.deepEqual(theirs.json, { lines: 0, fields: [] });
  });
});
