/*
 * `logstead copy-to-cluster` end to end, on real parts: an embedded server (chDB and SQLite) is
 * filled through its HTTP API and stopped, then the real command copies its data directory into
 * a real PostgreSQL database and a ClickHouse database, and a server started on those answers
 * with the same keys, views and lines.
 *
 * The ClickHouse target is not a real server: no ClickHouse server new enough installs here, so it
 * is the embedded engine served over ClickHouse's HTTP interface (src/testing/chdb-http-server.ts,
 * whose header lists what that stand-in covers: no authentication, replication or clusters). The
 * SQL, the engine, the formats and @clickhouse/client are real. The engine takes one data directory
 * per process, and the stand-in holds this process's, so each copy runs as a child process, as
 * users run it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { type RunningLogstead, startLogstead } from '../app.js';
import { loadSettings } from '../settings.js';
import { dropTestPostgres, testPostgresUrl } from '../testing/config-database.js';
import { type TestServer, basic, eventually, jsonLines, request, startTestServer } from '../testing/harness.js';
import { testDatabaseUrl } from '../testing/log-engine.js';
import { BIN } from '../testing/process.js';
import { startHttpReceiver } from '../testing/receivers.js';

const ROOT = path.dirname(path.dirname(BIN));
const COPY_MODULE = pathToFileURL(path.join(ROOT, 'dist/src/copy-to-cluster/copy-to-cluster.js')).href;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: Record<string, string>): Promise<Run> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

const copyCommand = (dataDir: string, targets: { databaseUrl: string; clickhouseUrl: string }, ...extra: string[]) =>
  run([BIN, 'copy-to-cluster', '--database-url', targets.databaseUrl, '--clickhouse-url', targets.clickhouseUrl, ...extra], { LOGSTEAD_DATA_DIR: dataDir });

const exportAll = async (url: string, key: string) => {
  const reply = await request(`${url}/v1/export?from=0&to=${Date.now() + 86_400_000}&prefer=head`, { headers: { authorization: basic(key) } });
  assert.equal(reply.status, 200, reply.text);
  return jsonLines(reply.text);
};

let source: TestServer;
let hooks: Awaited<ReturnType<typeof startHttpReceiver>>;
let target: RunningLogstead | undefined;
const targetDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-copy-target-'));
const key = `copy-to-cluster-${process.pid}-${Date.now()}`;
let targets: { databaseUrl: string; clickhouseUrl: string };
let before_: { records: any[]; views: any[]; extraKey: string; keyIds: string[] };

before(async () => {
  hooks = await startHttpReceiver();
  // The source is embedded whatever this run's test engines are: that is what the command copies.
  source = await startTestServer({ LOGSTEAD_DATABASE_URL: '', LOGSTEAD_CLICKHOUSE_URL: '', LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS: 'true' });
  const { ingestionKey, serviceKey } = source.org;
  const config = async (method: string, route: string, body?: unknown) => {
    const reply = await request(`${source.url}${route}`, {
      method,
      headers: { authorization: basic(serviceKey), 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    assert.equal(reply.status, 200, reply.text);
    return reply.json;
  };
  const ingest = async (lines: unknown[], query = 'hostname=web-1&tags=prod,eu') => {
    const reply = await request(`${source.url}/logs/ingest?${query}`, {
      method: 'POST',
      headers: { apikey: ingestionKey, 'content-type': 'application/json' },
      body: JSON.stringify({ lines }),
    });
    assert.equal(reply.status, 200, reply.text);
  };

  const extraKey = (await config('POST', '/v1/config/keys?type=service', { name: 'copied' })).key as string;
  await config('POST', '/v1/config/categories/views', { name: 'Payments' });
  const view = await config('POST', '/v1/config/view', {
    name: 'Checkout failures',
    query: 'checkout failed',
    category: ['Payments'],
    channels: [{ integration: 'webhook', url: `${hooks.url}/checkout`, triggerlimit: 1, immediate: true }],
  });
  assert.ok(view.viewid);

  const day = 86_400_000;
  await ingest([
    // Older days too: the copy crosses the daily partitions.
    { line: 'user signed in', app: 'auth', level: 'INFO', timestamp: Date.now() - 3 * day, meta: { user_id: 'u-42', plan: { tier: 'pro' } } },
    { line: 'tab\there, new\nline, back\\slash and café 漢字', app: 'auth', timestamp: Date.now() - 2 * day, meta: { quote: "it's", n: 1.5 } },
    { line: '{"msg":"json line","status":500,"path":"/pay"}', app: 'api', level: 'ERROR', meta: { user_id: 'u-7' } },
    { line: 'type clash', app: 'api', meta: { user_id: 42 } },
    { line: 'plain, no meta', app: 'worker', env: 'production', file: '/var/log/app.log' },
  ]);
  const many = Array.from({ length: 20 }, (_, i) => ({ line: `request ${i} took ${i * 7} ms`, app: `app-${i % 3}`, level: i % 2 ? 'WARN' : 'INFO', meta: { i, ok: i % 2 === 0 } }));
  await ingest(many, 'hostname=web-2&ip=10.0.0.2&mac=aa:bb:cc:dd:ee:ff');
  await ingest([{ line: 'checkout failed for order 17', app: 'shop', level: 'ERROR' }]);
  // The alert fired and its webhook was delivered: fires, deliveries and attempts have rows to copy.
  await eventually(() => (hooks.received.some((hook) => hook.path === '/checkout') ? true : undefined), 10_000, 'the alert webhook');

  const records = await exportAll(source.url, serviceKey);
  assert.equal(records.length, 26);
  assert.ok(records.some((record) => record._metaUnindexed === 'type-conflict'));
  const views = (await config('GET', '/v1/config/view')) as any[];
  const keyIds = ((await config('GET', '/v1/config/keys')) as any[]).map((each) => each.id).sort();
  before_ = { records, views, extraKey, keyIds };
  // Stopped, not removed: the data directory is what is copied (startTestServer's close deletes it).
  await source.running.close();

  targets = { databaseUrl: await testPostgresUrl(key), clickhouseUrl: await testDatabaseUrl(key) };
});

after(async () => {
  await target?.close();
  await hooks?.close();
  await dropTestPostgres(key);
  fs.rmSync(targetDir, { recursive: true, force: true });
  if (source) fs.rmSync(source.dataDir, { recursive: true, force: true });
});

test('a missing data directory is refused with a clear error', async () => {
  const missing = path.join(targetDir, 'no-such-dir');
  const result = await copyCommand(missing, targets);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /No Logstead data directory at .*no-such-dir/);
  assert.equal(fs.existsSync(missing), false);
});

test('a copy that failed half way through the lines is carried on by running it again', async () => {
  // An earlier attempt that died after two batches of four lines: some lines, no configuration.
  const script = `
    import { copyToCluster } from ${JSON.stringify(COPY_MODULE)};
    await copyToCluster({ dataDir: ${JSON.stringify(source.dataDir)}, databaseUrl: ${JSON.stringify(targets.databaseUrl)},
      clickhouseUrl: ${JSON.stringify(targets.clickhouseUrl)}, batchLines: 4,
      onBatch: (progress) => { if (progress.done >= 8) throw new Error('connection lost (simulated)'); } });`;
  const failed = await run(['--input-type=module', '-e', script], {});
  assert.notEqual(failed.code, 0);
  assert.match(failed.stderr, /connection lost \(simulated\)/);
  const db = new pg.Client({ connectionString: targets.databaseUrl });
  await db.connect();
  try {
    assert.equal((await db.query('SELECT count(*)::int AS n FROM accounts')).rows[0].n, 0, 'no configuration before the lines are all there');
  } finally {
    await db.end();
  }

  const copied = await copyCommand(source.dataDir, targets, '--batch-lines', '4');
  assert.equal(copied.code, 0, copied.stderr);
  assert.match(copied.stderr, /8 already there from an earlier copy/);
  assert.deepEqual(JSON.parse(copied.stdout), { organisations: 1, keys: 3, views: 1, lines: 26 });
});

test('a server on the copied stores has the same keys, views and lines', async () => {
  target = await startLogstead(
    loadSettings({ LOGSTEAD_PORT: '0', LOGSTEAD_DATA_DIR: targetDir, LOGSTEAD_LOG_LEVEL: 'warn', LOGSTEAD_DATABASE_URL: targets.databaseUrl, LOGSTEAD_CLICKHOUSE_URL: targets.clickhouseUrl }),
  );
  assert.equal(target.firstStart, null, 'the copied organisation is found, so none is created');
  const { serviceKey, ingestionKey } = source.org;

  // Every line exports exactly as before: ids, times, text, meta, tags and the rest.
  assert.deepEqual(await exportAll(target.url, serviceKey), before_.records);
  assert.deepEqual(await exportAll(target.url, before_.extraKey), before_.records);

  const views = await request(`${target.url}/v1/config/view`, { headers: { authorization: basic(serviceKey) } });
  assert.equal(views.status, 200);
  assert.deepEqual(views.json, before_.views);
  assert.equal(views.json[0].channels[0].url, `${hooks.url}/checkout`);
  const keys = await request(`${target.url}/v1/config/keys`, { headers: { authorization: basic(serviceKey) } });
  assert.deepEqual(keys.json.map((each: any) => each.id).sort(), before_.keyIds);

  // The old ingestion key ingests on the cluster; the new line is searchable beside the copied ones.
  const ingested = await request(`${target.url}/logs/ingest?hostname=node-b`, {
    method: 'POST',
    headers: { apikey: ingestionKey, 'content-type': 'application/json' },
    body: JSON.stringify({ lines: [{ line: 'after the move', app: 'auth' }] }),
  });
  assert.equal(ingested.status, 200, ingested.text);
  const records = await exportAll(target.url, serviceKey);
  assert.equal(records.length, 27);
  assert.equal(new Set(records.map((record) => record._id)).size, 27);

  // Serial ids continue after the copied ones.
  const db = new pg.Client({ connectionString: targets.databaseUrl });
  await db.connect();
  try {
    for (const table of ['alert_fires', 'deliveries', 'delivery_attempts']) {
      const { rows } = await db.query(`SELECT (SELECT count(*)::int FROM ${table}) AS n, (SELECT max(id)::int FROM ${table}) AS max, (SELECT last_value::int FROM ${table}_id_seq) AS last`);
      assert.ok(rows[0].n >= 1, `${table} was copied`);
      assert.ok(rows[0].last > rows[0].max, `${table}'s sequence is past its copied ids`);
    }
  } finally {
    await db.end();
  }
});

test('a second copy is refused and writes nothing', async () => {
  const again = await copyCommand(source.dataDir, targets);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /already has 1 organisation/);
  assert.equal(again.stdout, '');
  assert.equal((await exportAll(target!.url, source.org.serviceKey)).length, 27);
});
