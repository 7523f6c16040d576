import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestServer, eventually, jsonLines, request, startTestServer } from '../testing/harness.js';
import { S3RVER_KEY, S3RVER_SECRET, type StoreGate, type TestS3, startStoreGate, startTestS3 } from '../testing/s3-server.js';
import { archiveObjectKey, HOUR_MS } from './object-names.js';

// Archiving through the real parts: s3rver on loopback (which checks request signatures), the
// AWS SDK, the store, and a proxy that fails uploads on purpose.

let s3: TestS3;
/** In front of s3rver: checks signatures (s3rver does not) and injects faults. */
let gate: StoreGate;
let server: TestServer;
before(async () => {
  s3 = await startTestS3();
  gate = await startStoreGate(s3.endpoint);
  server = await startTestServer({ LOGSTEAD_ARCHIVE_DELAY_MINUTES: '0', LOGSTEAD_ARCHIVE_INTERVAL_SECONDS: '1', LOGSTEAD_ARCHIVE_SETTLE_SECONDS: '1' });
});
after(async () => {
  await server.close();
  await gate.close();
  await s3.close();
});

const s3Config = (overrides: Record<string, unknown> = {}) => ({
  integration: 's3',
  bucket: s3.bucket,
  endpoint: gate.endpoint,
  accesskey: S3RVER_KEY,
  secretkey: S3RVER_SECRET,
  forcepathstyle: true,
  ...overrides,
});

const call = (method: string, path: string, serviceKey: string, body?: unknown) =>
  request(`${server.url}${path}`, {
    method,
    headers: { servicekey: serviceKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

async function ingest(key: string, lines: Array<{ line: string; timestamp: number; app?: string }>) {
  const reply = await request(`${server.url}/logs/ingest?hostname=archive-host`, {
    method: 'POST',
    headers: { apikey: key, 'content-type': 'application/json' },
    body: JSON.stringify({ lines }),
  });
  assert.equal(reply.status, 200, reply.text);
}

async function exported(serviceKey: string, word: string, extra = ''): Promise<Array<Record<string, unknown>>> {
  const reply = await request(`${server.url}/v1/export?from=0&to=${Date.now() + HOUR_MS}&query=${encodeURIComponent(word)}${extra}`, { headers: { servicekey: serviceKey } });
  assert.equal(reply.status, 200, reply.text);
  return jsonLines(reply.text);
}

/** Every archived record of an organisation, by object name. */
async function archived(account: string): Promise<Map<string, Array<Record<string, unknown>>>> {
  const objects = new Map<string, Array<Record<string, unknown>>>();
  for (const key of await s3.keys()) if (key.includes(`/${account}.`)) objects.set(key, await s3.records(key));
  return objects;
}

/** The archive status once `lines` lines are written and nothing waits. */
const settled = (serviceKey: string, lines: number) =>
  eventually(
    async () => {
      const status = (await call('GET', '/v1/archive/status', serviceKey)).json;
      const written = status.files.reduce((sum: number, file: { status: string; lines: number }) => sum + (file.status === 'written' ? file.lines : 0), 0);
      return status.pending === 0 && written === lines ? status : undefined;
    },
    30_000,
    'archive files written',
  );

test('the configuration: only S3-compatible integrations, credentials checked by a test write, the secret never shown, audited masked', async () => {
  const org = await server.createOrg('archive-config');
  const key = org.serviceKey;
  assert.equal((await call('GET', '/v1/config/archiving', key)).status, 404);

  const gcs = await call('POST', '/v1/config/archiving', key, { integration: 'gcs', bucket: 'b', projectid: 'p' });
  assert.equal(gcs.status, 400);
  assert.match(gcs.json.error, /"gcs" is not supported.*s3, ibm or dos/);

  const wrongSecret = await call('POST', '/v1/config/archiving', key, s3Config({ secretkey: 'not-the-secret' }));
  assert.equal(wrongSecret.status, 400, wrongSecret.text);
  assert.match(wrongSecret.json.error, /SignatureDoesNotMatch/, 'the store\'s own error');
  const noBucket = await call('POST', '/v1/config/archiving', key, s3Config({ bucket: 'no-such-bucket' }));
  assert.equal(noBucket.status, 400);
  assert.match(noBucket.json.error, /NoSuchBucket/);
  const noEndpoint = await call('POST', '/v1/config/archiving', key, s3Config({ integration: 'dos', endpoint: undefined }));
  assert.equal(noEndpoint.status, 400);
  assert.equal((await call('GET', '/v1/config/archiving', key)).status, 404, 'nothing saved by refused attempts');

  const created = await call('POST', '/v1/config/archiving', key, s3Config());
  assert.equal(created.status, 200, created.text);
  assert.deepEqual(created.json, { integration: 's3', bucket: s3.bucket, endpoint: gate.endpoint, accesskey: S3RVER_KEY, forcepathstyle: true });
  assert.equal((await call('POST', '/v1/config/archiving', key, s3Config())).status, 409);
  const read = await call('GET', '/v1/config/archiving', key);
  assert.equal(read.json.secretkey, undefined);

  // PUT without the secret keeps the stored one (the check passes with it); with a wrong one it is refused.
  const renamed = await call('PUT', '/v1/config/archiving', key, { ...s3Config({ region: 'eu-west-1' }), secretkey: undefined });
  assert.equal(renamed.status, 200, renamed.text);
  assert.equal(renamed.json.region, 'eu-west-1');
  assert.equal((await call('PUT', '/v1/config/archiving', key, s3Config({ secretkey: 'wrong' }))).status, 400);
  assert.deepEqual(await s3.keys(), [], 'the check objects were deleted again');

  const trail = await call('GET', '/v1/config/audit?resource=archiving', key);
  assert.equal(trail.status, 200, trail.text);
  assert.equal(trail.json.records.length, 2, trail.text);
  assert.ok(!trail.text.includes(S3RVER_KEY), 'the access key is masked in the trail');

  const member = await server.signInAs('archive.member@example.com', 'member', { account: org.account });
  const forbidden = await request(`${server.url}/v1/config/archiving`, { headers: member.headers() });
  assert.equal(forbidden.status, 403);

  assert.equal((await call('DELETE', '/v1/config/archiving', key)).status, 200);
  assert.equal((await call('GET', '/v1/config/archiving', key)).status, 404);
  assert.equal((await call('DELETE', '/v1/config/archiving', key)).status, 404);
});

test('every line that arrives after archiving is configured is archived exactly once: hourly objects, late lines in numbered ones, through a restart and a failing store', async () => {
  const org = await server.createOrg('archive-lines');
  const key = org.serviceKey;
  const now = Date.now();
  const hourOf = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;
  const [h3, h2] = [hourOf(now) - 3 * HOUR_MS, hourOf(now) - 2 * HOUR_MS];
  await ingest(org.ingestionKey, [{ line: 'archword before configured', timestamp: h3 + 1000 }]);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal((await call('POST', '/v1/config/archiving', key, s3Config())).status, 200);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const first = Array.from({ length: 30 }, (_, index) => ({ line: `archword first ${index}`, timestamp: (index % 2 ? h2 : h3) + 60_000 + index }));
  await ingest(org.ingestionKey, first);

  let status = await settled(key, 30);
  const firstObjects = await archived(org.account);
  assert.deepEqual([...firstObjects.keys()].sort(), [archiveObjectKey(org.account, h3, 0), archiveObjectKey(org.account, h2, 0)].sort());
  const all = await exported(key, 'archword');
  const byId = new Map(all.map((record) => [record._id, record]));
  for (const records of firstObjects.values()) {
    for (const record of records) assert.deepEqual(record, byId.get(record._id), 'an archived line is its export record');
  }
  const firstIds = [...firstObjects.values()].flat().map((record) => record._id);
  assert.equal(firstIds.length, 30);
  assert.ok(!all.filter((record) => record._line === 'archword before configured').some((record) => firstIds.includes(record._id)), 'a line from before the configuration is not archived');
  assert.equal(status.files.filter((file: { status: string }) => file.status === 'written').length, 2);
  assert.equal(status.files.reduce((sum: number, file: { lines: number }) => sum + file.lines, 0), 30);

  // Late lines for an archived hour, then a restart: they go to the hour's next file, once.
  await ingest(org.ingestionKey, [{ line: 'archword late one', timestamp: h3 + 5000 }]);
  await server.restart();
  status = await settled(key, 31);
  const late = await s3.records(archiveObjectKey(org.account, h3, 1));
  assert.deepEqual(late.map((record) => record._line), ['archword late one']);

  // A store failing mid-upload: the file is retried and written once, the failure recorded.
  gate.failPuts = 1;
  const failedBefore = gate.failedPuts;
  await ingest(org.ingestionKey, [{ line: 'archword late two', timestamp: h2 + 7000 }, { line: 'archword late three', timestamp: h2 + 8000 }]);
  const failing = await eventually(async () => {
    const files = (await call('GET', '/v1/archive/status', key)).json.files;
    return files.find((file: { object: string; lastError: string | null }) => file.object === archiveObjectKey(org.account, h2, 1) && file.lastError);
  }, 30_000, 'the failure recorded');
  assert.match(failing.lastError, /InternalError/);
  status = await settled(key, 33);
  assert.equal(gate.failedPuts - failedBefore, 1, 'the upload failed once');
  const retried = status.files.find((file: { object: string }) => file.object === archiveObjectKey(org.account, h2, 1));
  assert.equal(retried.attempts, 2);
  assert.equal(retried.lines, 2);
  assert.equal(retried.lastError, null);

  const everything = [...(await archived(org.account)).values()].flat();
  const ids = everything.map((record) => record._id);
  assert.equal(new Set(ids).size, ids.length, 'no line archived twice');
  const expected = (await exported(key, 'archword')).filter((record) => record._line !== 'archword before configured').map((record) => record._id);
  assert.deepEqual([...ids].sort(), [...expected].sort(), 'every line after the configuration archived');

  // The archive searched with the same language, by the engine reading the bucket.
  const fromStore = (await exported(key, 'archword')).filter((record) => record._line !== 'archword before configured');
  assert.deepEqual(await exported(key, 'archword', '&source=archive'), fromStore, 'the archive answers as the store does');
  const lateFromArchive = await exported(key, '"archword late"', '&source=archive&prefer=head');
  assert.deepEqual(lateFromArchive.map((record) => record._line).sort(), ['archword late one', 'archword late three', 'archword late two']);
  assert.deepEqual(lateFromArchive, await exported(key, '"archword late"', '&prefer=head'));
  const window = `from=${h2}&to=${h2 + HOUR_MS - 1}`;
  const v2Pages: string[] = [];
  let token = '';
  for (let page = 0; page < 20; page++) {
    const reply = await call('GET', `/v2/export?${window}&source=archive&size=4&query=archword${token ? `&pagination_id=${token}` : ''}`, key);
    assert.equal(reply.status, 200, reply.text);
    v2Pages.push(...reply.json.lines.map((record: { _id: string }) => record._id));
    if (!reply.json.pagination_id) break;
    token = reply.json.pagination_id;
  }
  const h2Ids = fromStore.filter((record) => (record._ts as number) >= h2 && (record._ts as number) < h2 + HOUR_MS).map((record) => record._id);
  assert.deepEqual([...v2Pages].sort(), [...h2Ids].sort(), 'v2 pages walk the archived hour once');
  const notArchiving = await server.createOrg('archive-none');
  assert.equal((await call('GET', `/v1/export?from=0&to=${Date.now()}&source=archive`, notArchiving.serviceKey)).status, 404);
  assert.equal((await call('GET', `/v1/export?from=0&to=${Date.now()}&source=nowhere`, key)).status, 400);

  const metrics = await request(`${server.url}/metrics`);
  assert.match(metrics.text, /logstead_archive_failures_total [1-9]/);
  assert.match(metrics.text, /logstead_archive_lines_total [1-9]/);
  assert.match(metrics.text, /logstead_archive_lag_seconds 0\n/, 'nothing waits');
});

test('a restore loads matching archived lines back past retention, marked and kept; repeated, it loads nothing twice', async () => {
  const org = await server.createOrg('archive-restore');
  const key = org.serviceKey;
  assert.equal((await call('POST', '/v1/config/archiving', key, s3Config())).status, 200);
  const threeDaysAgo = Date.now() - 3 * 86_400_000;
  await ingest(org.ingestionKey, [
    { line: 'restoreword keep one', app: 'front', timestamp: threeDaysAgo },
    { line: 'restoreword keep two', app: 'back', timestamp: threeDaysAgo + 1 },
    { line: 'restoreword other', app: 'front', timestamp: threeDaysAgo + 2 },
  ]);
  await settled(key, 3);
  const archivedKeep = await exported(key, 'restoreword keep', '&source=archive');
  assert.equal(archivedKeep.length, 2);
  await server.withAccounts((accounts) => accounts.setRetention(org.account, 1));
  await server.restart(); // retention drops the lines
  assert.equal(await server.running.store.storedLines(org.account), 0);

  const body = { from: Math.floor((threeDaysAgo - HOUR_MS) / 1000), to: Date.now(), query: 'restoreword keep', days: 2 };
  assert.equal((await call('POST', '/v1/archive/restore', key, { ...body, query: 'restoreword (' })).status, 400);
  const started = await call('POST', '/v1/archive/restore', key, body);
  assert.equal(started.status, 202, started.text);
  const done = await eventually(async () => {
    const status = (await call('GET', `/v1/archive/restore/${started.json.id}`, key)).json;
    return status.status === 'running' ? undefined : status;
  }, 30_000, 'the restore finished');
  assert.equal(done.status, 'done', JSON.stringify(done));
  assert.equal(done.linesFound, 2);
  assert.equal(done.linesRestored, 2);
  assert.equal(done.progress, 1);
  const late = await call('DELETE', `/v1/archive/restore/${started.json.id}`, key);
  assert.equal(late.status, 409, 'a finished restore cannot be cancelled');
  assert.equal((await call('GET', `/v1/archive/restore/${started.json.id}`, key)).json.status, 'done');
  assert.deepEqual(await exported(key, 'restoreword'), archivedKeep, 'restored as archived, searchable in the store again');

  const again = await call('POST', '/v1/archive/restore', key, body);
  const second = await eventually(async () => {
    const status = (await call('GET', `/v1/archive/restore/${again.json.id}`, key)).json;
    return status.status === 'running' ? undefined : status;
  }, 30_000, 'the second restore finished');
  assert.equal(second.linesRestored, 0, 'lines still stored are not loaded again');
  // The viewer's menus go with the query: apps as a list or as export's comma-separated text.
  for (const apps of [['front'], 'front', ' front,nowhere ']) {
    const menus = await call('POST', '/v1/archive/restore', key, { ...body, apps });
    assert.equal(menus.status, 202, menus.text);
    const finished = await eventually(async () => {
      const status = (await call('GET', `/v1/archive/restore/${menus.json.id}`, key)).json;
      return status.status === 'running' ? undefined : status;
    }, 30_000, 'the restore with menus finished');
    assert.equal(finished.linesFound, 1, `only the front app's line matches: ${JSON.stringify(finished)}`);
    assert.deepEqual(finished.apps, typeof apps === 'string' && apps.includes('nowhere') ? ['front', 'nowhere'] : ['front']);
    assert.deepEqual([finished.hosts, finished.levels, finished.tags], [[], [], []]);
  }
  const tooLong = await call('POST', '/v1/archive/restore', key, { ...body, hosts: ['h'.repeat(300)] });
  assert.equal(tooLong.status, 400, tooLong.text);
  assert.match(tooLong.json.error, /hosts/);
  await server.restart(); // retention runs again: restored lines stay until their time
  assert.deepEqual(await exported(key, 'restoreword'), archivedKeep);
  assert.equal((await call('GET', '/v1/archive/restore/no-such-restore', key)).status, 404);
  await call('DELETE', '/v1/config/archiving', key);
});

test('retention keeps hours not yet archived while archiving is configured, up to LOGSTEAD_ARCHIVE_HOLD_DAYS', async () => {
  const org = await server.createOrg('archive-hold');
  const key = org.serviceKey;
  assert.equal((await call('POST', '/v1/config/archiving', key, s3Config())).status, 200);
  gate.failPuts = 1_000_000; // the bucket fails every upload
  try {
    const twoDaysAgo = Date.now() - 2 * 86_400_000;
    await ingest(org.ingestionKey, [{ line: 'holdword one', timestamp: twoDaysAgo }, { line: 'holdword two', timestamp: twoDaysAgo + 1 }]);
    await eventually(async () => ((await call('GET', '/v1/archive/status', key)).json.failing > 0 ? true : undefined), 30_000, 'the upload failing');
    const lag = /logstead_archive_lag_seconds ([\d.e+-]+)/.exec((await request(`${server.url}/metrics`)).text);
    assert.ok(lag && Number(lag[1]) > 0, 'a file waits: the lag shows it');
    await server.withAccounts((accounts) => accounts.setRetention(org.account, 1));
    await server.restart(); // retention runs at start
    assert.equal(await server.running.store.storedLines(org.account), 2, 'held: not archived yet');
    await server.restart({ LOGSTEAD_ARCHIVE_HOLD_DAYS: '0' });
    assert.equal(await server.running.store.storedLines(org.account), 0, 'past the safety limit, dropped');
  } finally {
    gate.failPuts = 0;
    await server.restart({ LOGSTEAD_ARCHIVE_HOLD_DAYS: '7' });
    await call('DELETE', '/v1/config/archiving', key);
  }
});
