import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { type TestServer, eventually, jsonLines, request, startTestServer } from '../testing/harness.js';
import { startHttpReceiver } from '../testing/receivers.js';

/**
 * Mezmo's ingestion controls on one server, through the real protocols: exclusion rules (what is
 * stored, tailed, alerted and counted) and suspending ingestion (every protocol refuses, as Mezmo
 * refuses a suspended account). Across nodes: ingestion-controls-cluster.test.ts.
 */

let server: TestServer;
let hooks: Awaited<ReturnType<typeof startHttpReceiver>>;
const hex = () => randomBytes(4).toString('hex');

before(async () => {
  hooks = await startHttpReceiver();
  server = await startTestServer({ LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS: 'true' });
});
after(async () => {
  await server?.close();
  await hooks?.close();
});

const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = { servicekey: server.org.serviceKey }) =>
  request(`${server.url}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const ingest = (lines: Array<Record<string, unknown>>, hostname = 'web-1', key = server.org.ingestionKey) =>
  request(`${server.url}/logs/ingest?hostname=${hostname}`, {
    method: 'POST',
    headers: { apikey: key, 'content-type': 'application/json' },
    body: JSON.stringify({ lines }),
  });

async function stored(word: string): Promise<string[]> {
  const reply = await call('GET', `/v1/export?from=0&to=${Date.now() + 60_000}&query=${word}`);
  assert.equal(reply.status, 200, reply.text);
  return jsonLines(reply.text).map((line) => line._line as string);
}

function openTail(params: string): Promise<{ socket: WebSocket; lines: Array<Record<string, any>> }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/ws/tail?${params}`, 'json', { headers: { authorization: `Token ${server.org.serviceKey}` } });
    const tail = { socket, lines: [] as Array<Record<string, any>>, ready: false };
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString());
      if (message.e === 'meta') tail.ready = true;
      else tail.lines.push(...(Array.isArray(message.p) ? message.p : [message.p]));
    });
    socket.on('open', () => eventually(() => (tail.ready ? tail : undefined)).then(resolve, reject));
    socket.on('error', reject);
  });
}

describe('exclusion rules', () => {
  test("are created as Mezmo's: inactive and index-only by default, one of apps, hosts or query required", async () => {
    const created = await call('POST', '/v1/config/ingestion/exclusions', { title: 'health checks', query: 'healthz' });
    assert.equal(created.status, 200, created.text);
    assert.deepEqual(Object.keys(created.json).sort(), ['active', 'apps', 'hosts', 'id', 'indexonly', 'query', 'title']);
    assert.equal(created.json.active, false);
    assert.equal(created.json.indexonly, true);
    assert.deepEqual([created.json.apps, created.json.hosts, created.json.query], [[], [], 'healthz']);
    assert.deepEqual((await call('GET', `/v1/config/ingestion/exclusions/${created.json.id}`)).json, created.json);
    assert.ok((await call('GET', '/v1/config/ingestion/exclusions')).json.some((rule: { id: string }) => rule.id === created.json.id));

    const patched = await call('PATCH', `/v1/config/ingestion/exclusions/${created.json.id}`, { title: 'renamed', apps: ['lb'] });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.json, { ...created.json, title: 'renamed', apps: ['lb'] });

    const deleted = await call('DELETE', `/v1/config/ingestion/exclusions/${created.json.id}`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal((await call('GET', `/v1/config/ingestion/exclusions/${created.json.id}`)).status, 404);
  });

  test('bad input gets a 400 or 404 in the config envelope, and changes nothing', async () => {
    const before = (await call('GET', '/v1/config/ingestion/exclusions')).json;
    for (const body of [{ title: 'no filter' }, { title: 'empty filters', apps: [], hosts: [], query: '' }, { query: 'status:(>=500' }, { apps: 'not a list' }, { query: 'x', active: 'maybe' }]) {
      const reply = await call('POST', '/v1/config/ingestion/exclusions', body);
      assert.equal(reply.status, 400, `${JSON.stringify(body)}: ${reply.text}`);
      assert.equal(reply.json.code, 'BadRequest');
      assert.equal(reply.json.status, 'error');
      assert.ok(Array.isArray(reply.json.details), reply.text);
    }
    const missing = await call('POST', '/v1/config/ingestion/exclusions', { title: 'no filter' });
    assert.match(missing.json.error, /must contain at least one of \[apps, hosts, query\]/);

    const unknown = await call('PATCH', '/v1/config/ingestion/exclusions/0123456789', { active: true });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json.code, 'NotFound');
    assert.equal((await call('DELETE', '/v1/config/ingestion/exclusions/0123456789')).status, 404);

    // A PATCH that would leave the rule matching every line, or with a bad query, is refused whole.
    const rule = (await call('POST', '/v1/config/ingestion/exclusions', { title: 'kept', query: 'keepword' })).json;
    for (const patch of [{ query: '', title: 'changed' }, { query: 'a AND (', title: 'changed' }]) {
      const reply = await call('PATCH', `/v1/config/ingestion/exclusions/${rule.id}`, patch);
      assert.equal(reply.status, 400, reply.text);
    }
    assert.deepEqual((await call('GET', `/v1/config/ingestion/exclusions/${rule.id}`)).json, rule);
    await call('DELETE', `/v1/config/ingestion/exclusions/${rule.id}`);
    // While apps still say which lines, a PATCH may clear the query.
    const both = (await call('POST', '/v1/config/ingestion/exclusions', { apps: ['a1'], query: 'foo' })).json;
    const cleared = await call('PATCH', `/v1/config/ingestion/exclusions/${both.id}`, { query: '' });
    assert.equal(cleared.status, 200, cleared.text);
    assert.deepEqual([cleared.json.apps, cleared.json.query], [['a1'], '']);
    await call('DELETE', `/v1/config/ingestion/exclusions/${both.id}`);
    assert.deepEqual((await call('GET', '/v1/config/ingestion/exclusions')).json, before);
  });

  test('an active rule keeps lines from the store; index-only ones still reach live tail and alerts; usage counts them apart', async () => {
    const word = `excl${hex()}`;
    const view = await call('POST', '/v1/config/view', {
      name: `alert on ${word}`,
      query: `${word} indexonly`,
      channels: [{ integration: 'webhook', url: `${hooks.url}/${word}`, triggerlimit: 1, triggerinterval: '30', operator: 'presence', immediate: true, terminal: false }],
    });
    assert.equal(view.status, 200, view.text);
    const dropRule = (await call('POST', '/v1/config/ingestion/exclusions', { title: 'drop', query: `${word} dropped`, indexonly: false, active: true })).json;
    const indexRule = (await call('POST', '/v1/config/ingestion/exclusions', { title: 'index only', apps: ['noisy'], query: word, active: true })).json;
    await call('POST', '/v1/config/ingestion/exclusions', { title: 'inactive', query: `${word} inactive`, indexonly: false });
    const tail = await openTail(`q=${word}`);
    try {
      const reply = await ingest([
        { line: `${word} stored`, app: 'quiet' },
        { line: `${word} dropped`, app: 'quiet' },
        { line: `${word} indexonly`, app: 'noisy' },
        { line: `${word} inactive`, app: 'quiet' },
        { line: `${word} dropped too`, app: 'noisy' },
      ]);
      assert.equal(reply.status, 200, reply.text);
      assert.deepEqual((await stored(word)).sort(), [`${word} inactive`, `${word} stored`]);
      await eventually(() => (tail.lines.length >= 3 ? true : undefined), 5000, 'the tailed lines');
      assert.deepEqual(tail.lines.map((line) => line._line).sort(), [`${word} inactive`, `${word} indexonly`, `${word} stored`]);
      // The alert on the index-only line fired.
      await eventually(() => (hooks.received.some((hook) => hook.path === `/${word}`) ? true : undefined), 10_000, 'the alert on an index-only line');
    } finally {
      tail.socket.close();
    }
    // A request whose every line is excluded is still acknowledged as Mezmo's would be.
    assert.equal((await ingest([{ line: `${word} dropped again` }])).status, 200);

    const usage = await eventually(async () => {
      const got = await call('GET', '/v1/usage/excluded');
      return got.json.lines >= 4 ? got : undefined;
    }, 5000, 'the excluded lines counted');
    assert.equal(usage.json.lines, 4);
    const byId = new Map(usage.json.rules.map((rule: { id: string }) => [rule.id, rule]));
    const dropBytes = [`${word} dropped`, `${word} dropped too`, `${word} dropped again`].reduce((sum, line) => sum + Buffer.byteLength(line), 0);
    assert.deepEqual(byId.get(dropRule.id), { id: dropRule.id, title: 'drop', active: true, lines: 3, bytes: dropBytes });
    assert.equal((byId.get(indexRule.id) as { lines: number }).lines, 1);
    // Stored usage does not count them.
    const stats = await call('GET', '/v1/usage');
    assert.ok(!JSON.stringify(stats.json.topApps).includes('noisy'));
    for (const rule of (await call('GET', '/v1/config/ingestion/exclusions')).json) await call('DELETE', `/v1/config/ingestion/exclusions/${rule.id}`);
  });
});

describe('suspending ingestion', () => {
  const otlp = (word: string) => ({
    resourceLogs: [{ resource: { attributes: [{ key: 'host.name', value: { stringValue: 'h' } }] }, scopeLogs: [{ logRecords: [{ body: { stringValue: `${word} otlp` } }] }] }],
  });
  const sendEverywhere = async (word: string) => {
    const key = { apikey: server.org.ingestionKey };
    return {
      mezmo: await ingest([{ line: `${word} mezmo` }]),
      agent: await request(`${server.url}/logs/agent?hostname=h`, { method: 'POST', headers: { ...key, 'content-type': 'application/json' }, body: JSON.stringify({ lines: [{ line: `${word} agent` }] }) }),
      otlp: await request(`${server.url}/v1/logs`, { method: 'POST', headers: { ...key, 'content-type': 'application/json' }, body: JSON.stringify(otlp(word)) }),
      loki: await request(`${server.url}/loki/api/v1/push`, {
        method: 'POST',
        headers: { ...key, 'content-type': 'application/json' },
        body: JSON.stringify({ streams: [{ stream: { app: 'l' }, values: [[`${Date.now()}000000`, `${word} loki`]] }] }),
      }),
      elastic: await request(`${server.url}/_bulk`, {
        method: 'POST',
        headers: { ...key, 'content-type': 'application/x-ndjson' },
        body: `${JSON.stringify({ index: { _index: 'logs' } })}\n${JSON.stringify({ message: `${word} elastic`, host: 'h' })}\n`,
      }),
    };
  };

  test('asks for a token, is confirmed with it, refuses every protocol as Mezmo refuses a suspended account, and resumes', async () => {
    assert.deepEqual((await call('GET', '/v1/config/ingestion/status')).json, { is_ingesting: true });
    const asked = await call('POST', '/v1/config/ingestion/suspend');
    assert.equal(asked.status, 200, asked.text);
    assert.equal(typeof asked.json.token, 'string');
    // Asking alone suspends nothing.
    assert.deepEqual((await call('GET', '/v1/config/ingestion/status')).json, { is_ingesting: true });

    for (const body of [{ token: 'not the token' }, {}, { token: 42 }]) {
      const wrong = await call('POST', '/v1/config/ingestion/suspend/confirm', body);
      assert.equal(wrong.status, 400, wrong.text);
      assert.equal(wrong.json.code, 'BadRequest');
      assert.equal(wrong.json.details?.[0]?.key, 'token', wrong.text);
    }
    assert.deepEqual((await call('GET', '/v1/config/ingestion/status')).json, { is_ingesting: true });

    const confirmed = await call('POST', '/v1/config/ingestion/suspend/confirm', { token: asked.json.token });
    assert.equal(confirmed.status, 200, confirmed.text);
    assert.deepEqual((await call('GET', '/v1/config/ingestion/status')).json, { is_ingesting: false });
    // A token confirms once.
    assert.equal((await call('POST', '/v1/config/ingestion/suspend/confirm', { token: asked.json.token })).status, 400);

    const word = `susp${hex()}`;
    const refused = await sendEverywhere(word);
    assert.equal(refused.mezmo.status, 403);
    assert.deepEqual(refused.mezmo.json, { error: 'Account not found or inactive' });
    assert.equal(refused.agent.status, 403);
    assert.equal(refused.otlp.status, 403, refused.otlp.text);
    assert.equal(refused.loki.status, 403, refused.loki.text);
    assert.equal(refused.elastic.status, 403, refused.elastic.text);
    assert.deepEqual(await stored(word), []);

    const resumed = await call('POST', '/v1/config/ingestion/resume');
    assert.equal(resumed.status, 200, resumed.text);
    assert.deepEqual((await call('GET', '/v1/config/ingestion/status')).json, { is_ingesting: true });
    const accepted = await sendEverywhere(word);
    for (const [protocol, reply] of Object.entries(accepted)) assert.ok(reply.status < 300, `${protocol}: ${reply.status} ${reply.text}`);
    assert.equal((await stored(word)).length, 5);
  });

  test("one organisation's suspension leaves the others ingesting", async () => {
    const other = await server.createOrg(`other ${hex()}`);
    const token = (await call('POST', '/v1/config/ingestion/suspend')).json.token;
    assert.equal((await call('POST', '/v1/config/ingestion/suspend/confirm', { token })).status, 200);
    try {
      assert.equal((await ingest([{ line: 'other org line' }], 'h', other.ingestionKey)).status, 200);
      // B's token does not confirm for A, nor A's for B.
      const otherToken = (await call('POST', '/v1/config/ingestion/suspend', undefined, { servicekey: other.serviceKey })).json.token;
      assert.equal((await call('POST', '/v1/config/ingestion/suspend/confirm', { token: otherToken })).status, 400);
      assert.equal((await call('POST', '/v1/config/ingestion/suspend/confirm', { token }, { servicekey: other.serviceKey })).status, 400);
      assert.deepEqual((await call('GET', '/v1/config/ingestion/status', undefined, { servicekey: other.serviceKey })).json, { is_ingesting: true });
    } finally {
      await call('POST', '/v1/config/ingestion/resume');
    }
  });

  test('readonly members read the status and rules; only admins change them', async () => {
    const reader = await server.signInAs(`reader.${hex()}@example.com`, 'readonly');
    const as = (method: string, path: string, body?: unknown) => call(method, path, body, reader.headers(method !== 'GET'));
    assert.equal((await as('GET', '/v1/config/ingestion/status')).status, 200);
    assert.equal((await as('GET', '/v1/config/ingestion/exclusions')).status, 200);
    assert.equal((await as('POST', '/v1/config/ingestion/suspend')).status, 403);
    assert.equal((await as('POST', '/v1/config/ingestion/exclusions', { query: 'x' })).status, 403);
  });
});
