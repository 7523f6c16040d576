/**
 * The ingestion controls across two nodes as real processes on one PostgreSQL database and one
 * ClickHouse endpoint (as src/multi-node.test.ts runs them): an exclusion rule, a suspension and a
 * resumption made at one node apply at the other within a second, and the lines both nodes
 * excluded are counted together. Both nodes check the index-rate alert, which fires once.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { dropTestPostgres, testPostgresUrl } from '../testing/config-database.js';
import { eventually, jsonLines, request } from '../testing/harness.js';
import { testDatabaseUrl } from '../testing/log-engine.js';
import { type ServerProcess, exited, serveProcess } from '../testing/process.js';
import { startHttpReceiver } from '../testing/receivers.js';

const key = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-controls-cluster-'));
let nodes: ServerProcess[] = [];
let org: { account: string; ingestionKey: string; serviceKey: string };
let hooks: Awaited<ReturnType<typeof startHttpReceiver>>;
/** The brief's bound for a change to reach every node. */
const WITHIN_MS = 1000;

before(async () => {
  hooks = await startHttpReceiver();
  const env = { LOGSTEAD_DATABASE_URL: await testPostgresUrl(key), LOGSTEAD_CLICKHOUSE_URL: await testDatabaseUrl(key), LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS: 'true' };
  const dirs = [0, 1].map((n) => path.join(key, `node-${n}`));
  nodes = [await serveProcess(dirs[0], env), await serveProcess(dirs[1], env)];
  org = JSON.parse(fs.readFileSync(path.join(dirs[0], 'initial-credentials.json'), 'utf8'));
});

after(async () => {
  for (const node of nodes) if (node.child.exitCode === null && node.child.signalCode === null) node.child.kill('SIGTERM');
  await Promise.all(nodes.map((node) => exited(node.child)));
  await dropTestPostgres(key);
  await hooks?.close();
  fs.rmSync(key, { recursive: true, force: true });
});

const call = (node: ServerProcess, method: string, route: string, body?: unknown) =>
  request(`${node.url}${route}`, {
    method,
    headers: { servicekey: org.serviceKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const ingest = (node: ServerProcess, lines: Array<Record<string, unknown>>) =>
  request(`${node.url}/logs/ingest?hostname=cluster`, {
    method: 'POST',
    headers: { apikey: org.ingestionKey, 'content-type': 'application/json' },
    body: JSON.stringify({ lines }),
  });

async function stored(node: ServerProcess, word: string): Promise<string[]> {
  const reply = await call(node, 'GET', `/v1/export?from=0&to=${Date.now() + 60_000}&query=${word}`);
  assert.equal(reply.status, 200, reply.text);
  return jsonLines(reply.text).map((line) => line._line as string);
}

/** Waits out the bound from `since`: whatever was changed then must apply everywhere now. */
const untilBound = (since: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, since + WITHIN_MS - Date.now())));

test('an exclusion rule made at one node excludes at the other within a second; both count what they excluded', async () => {
  const [a, b] = nodes;
  const made = await call(a, 'POST', '/v1/config/ingestion/exclusions', { title: 'chatty', query: 'chatty', active: true, indexonly: false });
  assert.equal(made.status, 200, made.text);
  await untilBound(Date.now());
  assert.equal((await ingest(b, [{ line: 'chatty at b' }, { line: 'quiet at b' }])).status, 200);
  assert.equal((await ingest(a, [{ line: 'chatty at a' }, { line: 'quiet at a' }])).status, 200);
  assert.deepEqual((await stored(a, 'at')).sort(), ['quiet at a', 'quiet at b']);

  const counted = await eventually(async () => {
    const got = await call(b, 'GET', '/v1/usage/excluded');
    return got.json.lines === 2 ? got.json : undefined;
  }, 5000, 'both nodes counted');
  assert.deepEqual(counted.rules.map((rule: { id: string; lines: number }) => [rule.id, rule.lines]), [[made.json.id, 2]]);

  // Turned off at B: A stores such lines again within the second.
  const changed = Date.now();
  assert.equal((await call(b, 'PATCH', `/v1/config/ingestion/exclusions/${made.json.id}`, { active: false })).status, 200);
  await untilBound(changed);
  assert.equal((await ingest(a, [{ line: 'chatty again at a' }])).status, 200);
  assert.deepEqual(await stored(b, 'again'), ['chatty again at a']);
});

test('a suspension confirmed at one node refuses at the other within a second, and so does a resumption', async () => {
  const [a, b] = nodes;
  const token = (await call(a, 'POST', '/v1/config/ingestion/suspend')).json.token;
  // Asked at A, confirmed at B: the token is in the shared database.
  const confirmed = Date.now();
  assert.equal((await call(b, 'POST', '/v1/config/ingestion/suspend/confirm', { token })).status, 200);
  await untilBound(confirmed);
  const refused = await ingest(a, [{ line: 'while suspended' }]);
  assert.equal(refused.status, 403);
  assert.deepEqual(refused.json, { error: 'Account not found or inactive' });
  assert.deepEqual((await call(a, 'GET', '/v1/config/ingestion/status')).json, { is_ingesting: false });

  const resumed = Date.now();
  assert.equal((await call(a, 'POST', '/v1/config/ingestion/resume')).status, 200);
  await untilBound(resumed);
  assert.equal((await ingest(b, [{ line: 'after resuming' }])).status, 200);
  assert.deepEqual(await stored(a, 'resuming'), ['after resuming']);
});

test('every node checks the index-rate alert, and a period that passes it fires once', async () => {
  const [a, b] = nodes;
  const put = await call(b, 'PUT', '/v1/config/index-rate', { max_lines: 2, threshold_alert: 'separate', frequency: 'daily', enabled: true, channels: { webhook: [{ url: `${hooks.url}/rate`, method: 'POST' }] } });
  assert.equal(put.status, 200, put.text);
  assert.equal((await ingest(a, [{ line: 'rate 1' }, { line: 'rate 2' }, { line: 'rate 3' }])).status, 200);
  // Each node checks every 10 s.
  await eventually(() => hooks.received.find((hook) => hook.path === '/rate'), 25_000, 'the index-rate alert');
  // Both nodes have checked again since: still one.
  await new Promise((resolve) => setTimeout(resolve, 11_000));
  assert.equal(hooks.received.filter((hook) => hook.path === '/rate').length, 1);
});
