import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { NewAccount } from '../accounts/accounts.js';
import { type TestServer, request, startTestServer } from '../testing/harness.js';
import { BIN } from '../testing/process.js';

let server: TestServer;
let scratch: string;

before(async () => {
  server = await startTestServer();
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-backups-'));
});
after(async () => {
  await server.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

/**
 * Runs the real CLI on the server's data directory. Asynchronously: the server lives in this
 * process, and a blocked event loop could not answer the command's backup request.
 */
function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, LOGSTEAD_DATA_DIR: server.dataDir }, cwd: scratch }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function ingest(org: NewAccount, lines: object[]): Promise<void> {
  const reply = await request(`${server.url}/logs/ingest?hostname=backup-test`, {
    method: 'POST',
    headers: { apikey: org.ingestionKey, 'content-type': 'application/json' },
    body: JSON.stringify({ lines }),
  });
  assert.equal(reply.status, 200, reply.text);
}

const api = (servicekey: string, route: string, init: RequestInit = {}) =>
  request(`${server.url}${route}`, { ...init, headers: { servicekey, 'content-type': 'application/json', ...init.headers } });

/** Everything a backup must bring back for one organisation, as its API shows it. */
async function organisationState(org: NewAccount) {
  const exported = await api(org.serviceKey, `/v1/export?from=0&to=${Date.now() + 86_400_000}`);
  const views = await api(org.serviceKey, '/v1/config/view');
  const keys = await api(org.serviceKey, '/v1/config/keys');
  for (const reply of [exported, views, keys]) assert.equal(reply.status, 200, reply.text);
  return { lines: exported.text, views: views.json, keys: keys.json };
}

test('a backup taken while the server runs restores exactly the lines, views and keys it held, into a wiped data directory', async () => {
  const first = server.org;
  const second = await server.createOrg('second organisation');
  await ingest(first, [
    { line: 'user signed in', app: 'auth', level: 'INFO', meta: { user: 42 } },
    { line: 'payment failed', app: 'billing', level: 'ERROR' },
    { line: '{"event":"json line"}', app: 'auth' },
  ]);
  await ingest(second, [{ line: 'another organisation' }, { line: 'kept apart', tags: ['a', 'b'] }]);
  assert.equal((await api(first.serviceKey, '/v1/config/view', { method: 'POST', body: JSON.stringify({ name: 'Billing errors', query: 'app:billing level:error' }) })).status, 200);
  const extraKey = JSON.parse((await cli('key', 'create', '--account', first.account, '--type', 'service', '--name', 'kept')).stdout);
  const before = { first: await organisationState(first), second: await organisationState(second) };
  assert.match(before.first.lines, /payment failed/);
  assert.equal(before.first.views.length, 1);

  const backupDir = path.join(scratch, 'online');
  const backup = await cli('backup', 'online'); // relative to the command's directory, not the server's
  assert.equal(backup.code, 0, backup.stderr);
  const manifest = JSON.parse(backup.stdout);
  assert.equal(manifest.taken, 'online');
  assert.equal(manifest.lines, 5);
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(backupDir, 'manifest.json'), 'utf8')), manifest);
  assert.ok(manifest.contents.includes('config.sqlite') && manifest.contents.includes('clickhouse'));
  assert.ok(manifest.contents.includes('secret.key'), 'the key that opens sealed secrets is kept');

  // Changes after the backup must not come back.
  await ingest(first, [{ line: 'written after the backup' }]);
  assert.equal((await api(first.serviceKey, '/v1/config/view', { method: 'POST', body: JSON.stringify({ name: 'Later view', query: 'later' }) })).status, 200);
  const laterKey = JSON.parse((await cli('key', 'create', '--account', first.account, '--type', 'service', '--name', 'later')).stdout);
  assert.equal((await cli('key', 'revoke', extraKey.id)).code, 0);

  const refusedWhileRunning = await cli('restore', backupDir);
  assert.equal(refusedWhileRunning.code, 1);
  assert.match(refusedWhileRunning.stderr, /A Logstead server is running on .*Stop it, then restore/);
  assert.match((await organisationState(first)).lines, /written after the backup/, 'a refused restore changes nothing');
  const intoNonEmpty = await cli('backup', backupDir);
  assert.equal(intoNonEmpty.code, 1);
  assert.match(intoNonEmpty.stderr, /is not empty; back up into a new or empty directory/);

  await server.running.close();
  fs.rmSync(server.dataDir, { recursive: true, force: true });
  const restored = await cli('restore', backupDir);
  assert.equal(restored.code, 0, restored.stderr);
  assert.equal(JSON.parse(restored.stdout).lines, 5);
  await server.restart();

  assert.deepEqual(await organisationState(first), before.first);
  assert.deepEqual(await organisationState(second), before.second);
  assert.equal((await api(extraKey.key, '/v1/config/view')).status, 200, 'a key revoked after the backup works again');
  assert.equal((await api(laterKey.key, '/v1/config/view')).status, 401, 'a key made after the backup is gone');
  await ingest(first, [{ line: 'the old ingestion key still works' }]);
});

test('with the server stopped, backup takes the snapshot itself, and restore replaces existing data only with --force', async () => {
  const before = await organisationState(server.org);
  await server.running.close();
  const backupDir = path.join(scratch, 'offline');
  const backup = await cli('backup', backupDir);
  assert.equal(backup.code, 0, backup.stderr);
  assert.equal(JSON.parse(backup.stdout).taken, 'offline');

  const refused = await cli('restore', backupDir);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /already holds data \(config\.sqlite, clickhouse.*add --force/);
  const forced = await cli('restore', backupDir, '--force');
  assert.equal(forced.code, 0, forced.stderr);
  await server.restart();
  assert.deepEqual(await organisationState(server.org), before);
});

test('restore refuses a directory that is not a finished backup', async () => {
  const unfinished = path.join(scratch, 'unfinished');
  fs.mkdirSync(unfinished);
  const result = await cli('restore', unfinished, '--force');
  assert.equal(result.code, 1);
  assert.match(result.stderr, /is not a finished Logstead backup: it has no manifest\.json/);
  assert.equal((await api(server.org.serviceKey, '/v1/config/view')).status, 200, 'the running server was not touched');
  const usage = await cli('backup');
  assert.equal(usage.code, 1);
  assert.match(usage.stderr, /Usage: logstead backup <dir>/);
});
