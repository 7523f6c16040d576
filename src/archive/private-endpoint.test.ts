import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestServer, eventually, jsonLines, request, startTestServer } from '../testing/harness.js';
import { S3RVER_KEY, S3RVER_SECRET, type TestS3, startTestS3 } from '../testing/s3-server.js';
import { HOUR_MS } from './object-names.js';

// LOGSTEAD_ALLOW_PRIVATE_ARCHIVES=false is checked when the bucket is used, not only when it is
// saved: a host name can be pointed inside later. Here `localhost` (127.0.0.1) stands for a name
// that resolved to a public address when saved: it is saved while private endpoints are allowed,
// then the server restarts with them refused. s3rver on loopback is the bucket.

let s3: TestS3;
let server: TestServer;
before(async () => {
  s3 = await startTestS3();
  server = await startTestServer({ LOGSTEAD_ARCHIVE_DELAY_MINUTES: '0', LOGSTEAD_ARCHIVE_INTERVAL_SECONDS: '1', LOGSTEAD_ARCHIVE_SETTLE_SECONDS: '1' });
});
after(async () => {
  await server.close();
  await s3.close();
});

test('a bucket endpoint that now resolves to a private address is refused at each use: search (400), archive run and restore (recorded failures)', async () => {
  const org = await server.createOrg('archive-private');
  const key = org.serviceKey;
  const call = (method: string, path: string, body?: unknown) =>
    request(`${server.url}${path}`, { method, headers: { servicekey: key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
  const endpoint = s3.endpoint.replace('127.0.0.1', 'localhost');
  const saved = await call('POST', '/v1/config/archiving', { integration: 's3', bucket: s3.bucket, endpoint, accesskey: S3RVER_KEY, secretkey: S3RVER_SECRET, forcepathstyle: true });
  assert.equal(saved.status, 200, saved.text);
  const ingest = async (line: string) => {
    const reply = await request(`${server.url}/logs/ingest?hostname=h`, { method: 'POST', headers: { apikey: org.ingestionKey, 'content-type': 'application/json' }, body: JSON.stringify({ lines: [{ line, timestamp: Date.now() - 2 * HOUR_MS }] }) });
    assert.equal(reply.status, 200, reply.text);
  };
  await ingest('privword first');
  await eventually(async () => ((await call('GET', '/v1/archive/status')).json.files.some((file: { status: string }) => file.status === 'written') ? true : undefined), 30_000, 'archived while allowed');
  const range = `from=0&to=${Date.now()}`;
  const allowed = await call('GET', `/v1/export?${range}&source=archive&query=privword`);
  assert.equal(allowed.status, 200, allowed.text);
  assert.equal(jsonLines(allowed.text).length, 1);

  await server.restart({ LOGSTEAD_ALLOW_PRIVATE_ARCHIVES: 'false' });
  const refused = await call('GET', `/v1/export?${range}&source=archive&query=privword`);
  assert.equal(refused.status, 400, refused.text);
  assert.match(refused.json.error, /localhost \(127\.0\.0\.1\) is an internal .*LOGSTEAD_ALLOW_PRIVATE_ARCHIVES=false/);
  assert.equal((await call('GET', `/v2/export?${range}&source=archive`)).status, 400);

  const keysBefore = await s3.keys();
  await ingest('privword second');
  const failing = await eventually(async () => (await call('GET', '/v1/archive/status')).json.files.find((file: { status: string; lastError: string | null }) => file.status === 'pending' && file.lastError), 30_000, 'the archive run refused');
  assert.match(failing.lastError, /localhost resolves to 127\.0\.0\.1.*LOGSTEAD_ALLOW_PRIVATE_ARCHIVES=false/);
  assert.deepEqual(await s3.keys(), keysBefore, 'nothing written');

  const restore = await call('POST', '/v1/archive/restore', { from: 0, to: Date.now(), query: 'privword' });
  assert.equal(restore.status, 202, restore.text);
  const done = await eventually(async () => {
    const status = (await call('GET', `/v1/archive/restore/${restore.json.id}`)).json;
    return status.status === 'running' ? undefined : status;
  }, 30_000, 'the restore finished');
  assert.equal(done.status, 'failed');
  assert.match(done.error, /localhost resolves to 127\.0\.0\.1.*LOGSTEAD_ALLOW_PRIVATE_ARCHIVES=false/);
  assert.equal(done.linesRestored, 0);
});
