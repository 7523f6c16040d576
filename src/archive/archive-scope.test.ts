import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { type MemberSession, type TestServer, callJson, eventually, request, startTestServer } from '../testing/harness.js';
import { S3RVER_KEY, S3RVER_SECRET, type TestS3, startTestS3 } from '../testing/s3-server.js';
import { HOUR_MS } from './object-names.js';

/**
 * The archive's listings for an admin scoped to `app:billing` (issue 39, point 6): the archive
 * status shows no file's line or byte counts (a file holds every line of its hour), and a
 * restore's status (its query and the lines it found) only of restores started within the
 * admin's scope. The owner sees everything as before. Through s3rver, the engine and the
 * configuration database (PostgreSQL with LOGSTEAD_TEST_DATABASE=postgres).
 */

const hex = () => randomBytes(4).toString('hex');
const base = Math.floor((Date.now() - 3 * 86_400_000) / HOUR_MS) * HOUR_MS;
let s3: TestS3;
let server: TestServer;
let scopedAdmin: MemberSession;
let unscopedAdmin: MemberSession;

const keyHeaders = () => ({ servicekey: server.org.serviceKey });
const call = (method: string, path: string, headers: Record<string, string>, body?: unknown) => callJson(server.url, method, path, headers, body);

const BILLING = 4;
const PAYROLL = 6;

before(async () => {
  s3 = await startTestS3();
  server = await startTestServer({
    LOGSTEAD_ARCHIVE_DELAY_MINUTES: '0',
    LOGSTEAD_ARCHIVE_INTERVAL_SECONDS: '1',
    LOGSTEAD_ARCHIVE_SETTLE_SECONDS: '1',
  });
  const configured = await call('POST', '/v1/config/archiving', keyHeaders(), { integration: 's3', bucket: s3.bucket, endpoint: s3.endpoint, accesskey: S3RVER_KEY, secretkey: S3RVER_SECRET, forcepathstyle: true });
  assert.equal(configured.status, 200, configured.text);
  const lines = [
    ...Array.from({ length: BILLING }, (_, i) => ({ line: `invoice ${i}`, app: 'billing', timestamp: base + i * 1000 })),
    ...Array.from({ length: PAYROLL }, (_, i) => ({ line: `salary ${i}`, app: 'payroll', timestamp: base + HOUR_MS + i * 1000 })),
  ];
  const ingested = await request(`${server.url}/logs/ingest?hostname=h1`, { method: 'POST', headers: { apikey: server.org.ingestionKey, 'content-type': 'application/json' }, body: JSON.stringify({ lines }) });
  assert.equal(ingested.status, 200, ingested.text);
  await eventually(
    async () => {
      const status = (await call('GET', '/v1/archive/status', keyHeaders())).json;
      const written = status.files.reduce((sum: number, file: { status: string; lines: number }) => sum + (file.status === 'written' ? file.lines : 0), 0);
      return status.pending === 0 && written === lines.length ? true : undefined;
    },
    30_000,
    'the lines archived',
  );
  const group = await call('POST', '/v1/config/groups', keyHeaders(), { name: `billing ${hex()}`, access_scopes: 'app:billing' });
  assert.equal(group.status, 200, group.text);
  scopedAdmin = await server.signInAs(`scoped.${hex()}@example.com`, 'admin', { groups: [group.json.id] });
  unscopedAdmin = await server.signInAs(`admin.${hex()}@example.com`, 'admin');
});
after(async () => {
  await server?.close();
  await s3?.close();
});

test('the archive status shows a scoped admin no line or byte counts; the owner every count', async () => {
  const owner = (await call('GET', '/v1/archive/status', keyHeaders())).json;
  assert.equal(owner.files.reduce((sum: number, file: { lines: number }) => sum + file.lines, 0), BILLING + PAYROLL);
  assert.ok(owner.files.every((file: { bytes: number }) => file.bytes > 0));
  assert.deepEqual((await call('GET', '/v1/archive/status', unscopedAdmin.headers())).json, owner, 'an admin in no scoped group sees what the owner does');

  const scoped = await call('GET', '/v1/archive/status', scopedAdmin.headers());
  assert.equal(scoped.status, 200, scoped.text);
  assert.equal(scoped.json.files.length, owner.files.length);
  for (const [at, file] of scoped.json.files.entries()) {
    const { lines: _lines, bytes: _bytes, ...rest } = owner.files[at];
    assert.deepEqual(file, rest, 'each file as the owner sees it, less its counts');
  }
  assert.deepEqual({ ...scoped.json, files: [] }, { ...owner, files: [] }, 'progress as the owner sees it');
});

test("a restore's status is shown to a scoped admin only when it was started within their scope", async () => {
  const range = { from: base, to: base + 3 * HOUR_MS, query: '' };
  const byOwner = await call('POST', '/v1/archive/restore', keyHeaders(), range);
  assert.equal(byOwner.status, 202, byOwner.text);
  const byScoped = await call('POST', '/v1/archive/restore', scopedAdmin.headers(true), range);
  assert.equal(byScoped.status, 202, byScoped.text);
  const done = (id: string) =>
    eventually(async () => {
      const status = (await call('GET', `/v1/archive/restore/${id}`, keyHeaders())).json;
      return status.status === 'running' ? undefined : status;
    }, 60_000, 'the restore finished');
  assert.equal((await done(byOwner.json.id)).linesFound, BILLING + PAYROLL);
  assert.equal((await done(byScoped.json.id)).linesFound, BILLING, "the scoped admin's restore finds only their scope's lines");

  const own = await call('GET', `/v1/archive/restore/${byScoped.json.id}`, scopedAdmin.headers());
  assert.equal(own.status, 200, own.text);
  assert.equal(own.json.linesFound, BILLING);
  for (const [method, headers] of [['GET', scopedAdmin.headers()], ['DELETE', scopedAdmin.headers(true)]] as const) {
    const other = await call(method, `/v1/archive/restore/${byOwner.json.id}`, headers);
    assert.equal(other.status, 404, `${method} of the owner's restore: ${other.text}`);
    assert.ok(!other.text.includes(String(BILLING + PAYROLL)));
  }
  assert.equal((await call('GET', `/v1/archive/restore/${byOwner.json.id}`, unscopedAdmin.headers())).json.linesFound, BILLING + PAYROLL);
});
