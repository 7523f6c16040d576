import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { type TestServer, request, startTestServer } from './testing/harness.js';

import { BIN } from './testing/process.js';
let server: TestServer;

before(async () => {
  server = await startTestServer();
});
after(() => server.close());

/** Runs the real CLI against the running server's data directory. */
function cli(...args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, LOGSTEAD_DATA_DIR: server.dataDir },
    encoding: 'utf8',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const ingestStatus = async (key: string) =>
  (
    await request(`${server.url}/logs/ingest?hostname=cli`, {
      method: 'POST',
      headers: { apikey: key, 'content-type': 'application/json' },
      body: JSON.stringify({ lines: [{ line: 'from the cli test' }] }),
    })
  ).status;

test('org create prints one JSON object with account, ingestionKey and serviceKey, and the keys work at once', async () => {
  const result = cli('org', 'create', 'Acme Corp');
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout.trim().split('\n').length, 1);
  const created = JSON.parse(result.stdout);
  assert.deepEqual(Object.keys(created).sort(), ['account', 'ingestionKey', 'serviceKey']);
  assert.match(created.account, /^[0-9a-f]{10}$/);
  assert.equal(await ingestStatus(created.ingestionKey), 200);
  const again = cli('org', 'create', 'acme corp');
  assert.notEqual(again.code, 0, 'a name already taken (in any case) is refused');
  assert.match(again.stderr, new RegExp(`An organisation named "acme corp" already exists \\(account ${created.account}\\)`));
  const exported = await request(`${server.url}/v1/export?from=0&to=${Date.now() + 1000}`, { headers: { servicekey: created.serviceKey } });
  assert.equal(exported.status, 200);
  assert.match(exported.text, /from the cli test/);
});

test('key create adds a working key, key revoke stops it', async () => {
  const { account } = JSON.parse(cli('org', 'create', 'keys').stdout);
  const result = cli('key', 'create', '--account', account, '--type', 'ingestion', '--name', 'ci');
  assert.equal(result.code, 0, result.stderr);
  const key = JSON.parse(result.stdout);
  assert.equal(key.account, account);
  assert.equal(key.type, 'ingestion');
  assert.equal(key.name, 'ci');
  assert.equal(await ingestStatus(key.key), 200);
  assert.equal(cli('key', 'revoke', key.id).code, 0);
  assert.equal(await ingestStatus(key.key), 403);
  assert.notEqual(cli('key', 'revoke', key.id).code, 0, 'revoking twice reports that nothing matched');

  const service = JSON.parse(cli('key', 'create', '--account', account, '--type', 'service').stdout);
  const exported = await request(`${server.url}/v2/export?from=0&to=1`, { headers: { servicekey: service.key } });
  assert.equal(exported.status, 200);
  assert.equal(cli('key', 'revoke', service.key).code, 0, 'a key can be revoked by its value too');
  assert.equal((await request(`${server.url}/v2/export?from=0&to=1`, { headers: { servicekey: service.key } })).status, 401);
});

test('key list shows ids, names and types, never the keys', () => {
  const created = JSON.parse(cli('org', 'create', 'listing').stdout);
  const result = cli('key', 'list', '--account', created.account);
  assert.equal(result.code, 0, result.stderr);
  const keys = JSON.parse(result.stdout);
  assert.deepEqual(keys.map((key: { type: string }) => key.type).sort(), ['ingestion', 'service']);
  assert.ok(!result.stdout.includes(created.ingestionKey));
  assert.ok(keys.every((key: { id: string }) => /^[0-9a-f]{10}$/.test(key.id)));
});

test('commands run against a missing data directory say so instead of creating one', () => {
  const result = spawnSync(process.execPath, [BIN, 'key', 'list', '--account', 'x'], {
    env: { ...process.env, LOGSTEAD_DATA_DIR: `${server.dataDir}-missing` },
    encoding: 'utf8',
  });
  assert.equal(result.status, 1);
  assert.match(result.stderr, /No Logstead data directory at .*-missing/);
  assert.equal(fs.existsSync(`${server.dataDir}-missing`), false);
});

test('org deactivate refuses every key of the organisation until it is activated again', async () => {
  const created = JSON.parse(cli('org', 'create', 'pausable').stdout);
  assert.equal(cli('org', 'deactivate', created.account).code, 0);
  assert.equal(await ingestStatus(created.ingestionKey), 403);
  assert.equal(cli('org', 'activate', created.account).code, 0);
  assert.equal(await ingestStatus(created.ingestionKey), 200);
});

test('mistakes get a message and a non-zero exit', () => {
  const cases: Array<[string[], RegExp]> = [
    [['org', 'create'], /Usage: logstead org create/],
    [['key', 'create', '--account', 'nope', '--type', 'ingestion'], /No organisation/],
    [['key', 'create', '--account', server.org.account, '--type', 'admin'], /ingestion.*service/],
    [['org', 'deactivate', 'nope'], /No organisation/],
    [['launch'], /Unknown command/],
  ];
  for (const [args, message] of cases) {
    const result = cli(...args);
    assert.equal(result.code, 1, args.join(' '));
    assert.match(result.stderr, message);
  }
});

test('migrate brings a data directory to the current schemas, says what it applied, and then finds nothing to do', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-migrate-'));
  try {
    const run = () => spawnSync(process.execPath, [BIN, 'migrate'], { env: { ...process.env, LOGSTEAD_DATA_DIR: dataDir }, encoding: 'utf8' });
    const first = run();
    assert.equal(first.status, 0, first.stderr);
    const applied = JSON.parse(first.stdout);
    assert.deepEqual(applied.config.applied, ['0001_schema', '0002_shared_by_nodes', '0003_people', '0004_archive', '0005_ingestion_controls', '0006_parsers', '0007_restore_control', '0008_restore_filters', '0009_setters', '0010_group_lists', '0011_exclusion_filter_version', '0012_alert_incidents', '0013_boards']);
    assert.equal(applied.config.version, '0013_boards');
    assert.match(first.stderr, /configuration: applied migration 0001_schema/);
    assert.deepEqual(applied.logs.applied.map((step: { version: number }) => step.version), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert.match(first.stderr, /log store: applied migration 1 \(create the log table\)/);
    const second = run();
    assert.equal(second.status, 0, second.stderr);
    assert.deepEqual(JSON.parse(second.stdout), { config: { version: applied.config.version, applied: [] }, logs: { version: 10, applied: [] } });
    assert.match(second.stderr, /Nothing to migrate/);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('backup and restore refuse when the lines are on a ClickHouse server, and say how to back those up', () => {
  for (const args of [['backup', path.join(os.tmpdir(), 'logstead-never-written')], ['restore', os.tmpdir()]]) {
    const result = spawnSync(process.execPath, [BIN, ...args], {
      env: { ...process.env, LOGSTEAD_DATA_DIR: server.dataDir, LOGSTEAD_CLICKHOUSE_URL: 'http://logstead:secret@127.0.0.1:1/logs' },
      encoding: 'utf8',
    });
    assert.equal(result.status, 1, args[0]);
    assert.match(result.stderr, /log lines are on the ClickHouse server: back them up with the server's own BACKUP/);
  }
  assert.equal(fs.existsSync(path.join(os.tmpdir(), 'logstead-never-written')), false);
});
