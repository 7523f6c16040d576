import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { SecretBox } from '../repository/secret-box.js';
import { type TestServer, eventually, jsonLines, request, startTestServer } from '../testing/harness.js';
import { S3RVER_KEY, S3RVER_SECRET, type TestS3, startTestS3 } from '../testing/s3-server.js';
import { ArchiveConfigs } from './archive-config.js';
import { ArchiveSearch } from './archive-search.js';
import { HOUR_MS } from './object-names.js';
import { RESTORE_STALE_MS, type RestoreStatus, Restores } from './restores.js';

// Restores that are cancelled, and restores whose node dies, through the real parts: s3rver, the
// engine reading it, the store and the configuration database (SQLite, or PostgreSQL with
// LOGSTEAD_TEST_DATABASE=postgres). Nodes are Restores instances on the server's own database
// and store, as the nodes of a cluster share theirs; a node "dies" by stopping between steps.

const SECRET_KEY = randomBytes(32).toString('hex');
let s3: TestS3;
let server: TestServer;
let org: Awaited<ReturnType<TestServer['createOrg']>>;
const base = Math.floor((Date.now() - 3 * 86_400_000) / HOUR_MS) * HOUR_MS;
const range = { fromMs: base, toMs: base + 3 * HOUR_MS, days: 2, scope: null };

const call = (method: string, path: string, body?: unknown) =>
  request(`${server.url}${path}`, {
    method,
    headers: { servicekey: org.serviceKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** The organisation's stored lines matching a word, as export reads them (a line stored twice shows twice). */
async function storedIds(word: string): Promise<string[]> {
  const reply = await call('GET', `/v1/export?from=0&to=${Date.now()}&query=${word}`);
  assert.equal(reply.status, 200, reply.text);
  return jsonLines(reply.text).map((record) => record._id);
}

/** A node: a Restores instance on the server's configuration database and store. */
function node(stepLines: number): Restores {
  const { db, store, app } = server.running;
  const search = new ArchiveSearch(db, new ArchiveConfigs(db, new SecretBox(Buffer.from(SECRET_KEY, 'hex'))), store);
  return new Restores(db, search, store, app.log, { stepLines });
}

const finished = (restores: Restores, id: string) =>
  eventually(async () => {
    const status = await restores.status(org.account, id);
    return status?.status === 'running' ? undefined : status;
  }, 60_000, 'the restore finished');

before(async () => {
  s3 = await startTestS3();
  // One line per step on the server's own node, so a restore through the API is still running when cancelled.
  server = await startTestServer({
    LOGSTEAD_SECRET_KEY: SECRET_KEY,
    LOGSTEAD_ARCHIVE_DELAY_MINUTES: '0',
    LOGSTEAD_ARCHIVE_INTERVAL_SECONDS: '1',
    LOGSTEAD_ARCHIVE_SETTLE_SECONDS: '1',
    LOGSTEAD_RESTORE_STEP_LINES: '1',
  });
  org = await server.createOrg('restores');
  const configured = await call('POST', '/v1/config/archiving', { integration: 's3', bucket: s3.bucket, endpoint: s3.endpoint, accesskey: S3RVER_KEY, secretkey: S3RVER_SECRET, forcepathstyle: true });
  assert.equal(configured.status, 200, configured.text);
  // Three days ago, over three hours: 40 alpha, 40 beta, 30 gamma and 30 delta lines, interleaved.
  const lines = ['alpha', 'beta', 'gamma', 'delta'].flatMap((word, w) =>
    Array.from({ length: w < 2 ? 40 : 30 }, (_, i) => ({ line: `${word}word line ${i}`, timestamp: base + ((i * 4 + w) * 3 * HOUR_MS) / 160 })),
  );
  const ingested = await request(`${server.url}/logs/ingest?hostname=restore-host`, { method: 'POST', headers: { apikey: org.ingestionKey, 'content-type': 'application/json' }, body: JSON.stringify({ lines }) });
  assert.equal(ingested.status, 200, ingested.text);
  await eventually(
    async () => {
      const status = (await call('GET', '/v1/archive/status')).json;
      const written = status.files.reduce((sum: number, file: { status: string; lines: number }) => sum + (file.status === 'written' ? file.lines : 0), 0);
      return status.pending === 0 && written === lines.length ? true : undefined;
    },
    30_000,
    'the lines archived',
  );
  await server.withAccounts((accounts) => accounts.setRetention(org.account, 1));
  await server.restart(); // retention drops them
  assert.equal(await server.running.store.storedLines(org.account), 0);
});
after(async () => {
  await server?.close();
  await s3?.close();
});

test('a node that dies mid-restore leaves it to another once its heartbeat is 30 s old; the other carries on, and no line is loaded twice', async () => {
  const first = node(2);
  const started = await first.begin(org.account, { ...range, query: 'alphaword', filters: {} });
  await eventually(async () => ((await first.status(org.account, started.id))!.linesRestored >= 4 ? true : undefined), 30_000, 'some steps done');
  await first.stop(); // the node dies between two steps
  const left = (await first.status(org.account, started.id))!;
  assert.equal(left.status, 'running');
  assert.ok(left.linesRestored < 40, `stopped mid-way: ${left.linesRestored}`);
  assert.ok(left.progress > 0 && left.progress < 1, `progress recorded: ${left.progress}`);
  assert.equal((await storedIds('alphaword')).length, left.linesRestored);

  const second = node(5);
  const third = node(5);
  assert.deepEqual(await second.takeOver(), [], 'its heartbeat is fresh: nobody takes it');
  // Seen from a clock 30 s on, rather than with the heartbeat made old in the table: the test
  // server's own restore loop would then be as free as these two to claim it on its next tick.
  const later = Date.now() + RESTORE_STALE_MS + 1;
  const [bySecond, byThird] = await Promise.all([second.takeOver(later), third.takeOver(later)]);
  assert.deepEqual([...bySecond, ...byThird], [started.id], 'one node claims it');
  const taker = bySecond.length ? second : third;
  const done = await finished(taker, started.id);
  assert.equal(done.status, 'done', JSON.stringify(done));
  assert.equal(done.linesRestored, 40);
  assert.equal(done.linesFound, 40);
  assert.equal(done.progress, 1);
  const ids = await storedIds('alphaword');
  assert.equal(ids.length, 40);
  assert.equal(new Set(ids).size, 40, 'no line stored twice');
  await second.stop();
  await third.stop();
});

test('a node that died after loading a step but before recording it: the taker reads those lines again and skips them as stored', async () => {
  const first = node(3);
  const started = await first.begin(org.account, { ...range, query: 'betaword', filters: {} });
  await eventually(async () => ((await first.status(org.account, started.id))!.linesRestored >= 6 ? true : undefined), 30_000, 'some steps done');
  await first.stop();
  const loaded = (await first.status(org.account, started.id))!.linesRestored;
  assert.ok(loaded < 40, `stopped mid-way: ${loaded}`);
  // Its last steps' progress lost: the row says it is at the start again.
  const { db } = server.running;
  await db.updateTable('archive_restores').set({ position_ts: null, position_id: null, lines_restored: 0 }).where('id', '=', started.id).execute();
  const second = node(4);
  assert.deepEqual(await second.takeOver(Date.now() + RESTORE_STALE_MS + 1), [started.id], 'taken once its heartbeat is 30 s old');
  const done = await finished(second, started.id);
  assert.equal(done.status, 'done', JSON.stringify(done));
  assert.equal(done.linesRestored, 40 - loaded, 'the lines already stored are not loaded again');
  const ids = await storedIds('betaword');
  assert.equal(ids.length, 40);
  assert.equal(new Set(ids).size, 40, 'no line stored twice');
  await second.stop();
});

test('a cancel at another node stops the restore at its next step; what was loaded stays, and the status stays cancelled', async () => {
  const running = node(1);
  const other = node(1);
  const started = await running.begin(org.account, { ...range, query: 'gammaword', filters: {} });
  await eventually(async () => ((await running.status(org.account, started.id))!.linesRestored >= 2 ? true : undefined), 30_000, 'some steps done');
  const outcome = await other.cancel(org.account, started.id);
  assert.ok(outcome && 'cancelled' in outcome, JSON.stringify(outcome));
  assert.equal(outcome.cancelled.status, 'cancelled');
  await running.stop(); // waits for its restore to end: it noticed the cancel
  const after = (await running.status(org.account, started.id))!;
  assert.equal(after.status, 'cancelled', 'not overwritten as done');
  assert.ok(after.linesRestored < 30, `stopped loading: ${after.linesRestored}`);
  const ids = await storedIds('gammaword');
  assert.equal(ids.length, after.linesRestored, 'the lines loaded before the cancel stay, and are counted');
  const again = await other.cancel(org.account, started.id);
  assert.ok(again && 'finished' in again, 'a second cancel finds it finished');
  assert.equal(await other.cancel(org.account, 'no-such-restore'), undefined);
  assert.equal(await other.cancel('another-account', started.id), undefined, "another organisation's restore is not found");
  // No node takes over a cancelled restore, however old its heartbeat.
  await server.running.db.updateTable('archive_restores').set({ heartbeat_at: 0 }).where('id', '=', started.id).execute();
  assert.deepEqual(await other.takeOver(), []);
  await other.stop();
});

test('DELETE /v1/archive/restore/:id cancels a running restore (audited); 409 once finished, 404 for an unknown id or another organisation', async () => {
  const started = await call('POST', '/v1/archive/restore', { from: Math.floor(range.fromMs / 1000), to: Math.floor(range.toMs / 1000), query: 'deltaword' });
  assert.equal(started.status, 202, started.text);
  const cancelled = await call('DELETE', `/v1/archive/restore/${started.json.id}`);
  assert.equal(cancelled.status, 200, cancelled.text);
  assert.equal(cancelled.json.status, 'cancelled');
  const conflict = await call('DELETE', `/v1/archive/restore/${started.json.id}`);
  assert.equal(conflict.status, 409);
  assert.match(conflict.json.error, /already finished \(cancelled\)/);
  assert.equal((await call('DELETE', '/v1/archive/restore/no-such-restore')).status, 404);
  const stranger = await server.createOrg('restores-stranger');
  const foreign = await request(`${server.url}/v1/archive/restore/${started.json.id}`, { method: 'DELETE', headers: { servicekey: stranger.serviceKey } });
  assert.equal(foreign.status, 404);

  // The node running it (one line a step) stops: the count of loaded lines stops growing, and matches the store.
  const settled = await eventually(async () => {
    const status: RestoreStatus = (await call('GET', `/v1/archive/restore/${started.json.id}`)).json;
    return (await storedIds('deltaword')).length === status.linesRestored ? status : undefined;
  }, 10_000, 'the loaded lines counted');
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const later: RestoreStatus = (await call('GET', `/v1/archive/restore/${started.json.id}`)).json;
  assert.equal(later.status, 'cancelled');
  assert.equal(later.linesRestored, settled.linesRestored, 'nothing loaded after the cancel');
  assert.equal((await storedIds('deltaword')).length, settled.linesRestored);
  assert.ok(settled.linesRestored < 30);

  const trail = await call('GET', '/v1/config/audit?resource=archive-restore');
  const actions = trail.json.records.map((record: { action: string; id: string }) => `${record.action} ${record.id}`);
  assert.ok(actions.includes(`archive-restore.delete ${started.json.id}`), JSON.stringify(actions));
});

test('a restore cut short by a node stopping is carried on by the next start of the loop, in steps of LOGSTEAD_RESTORE_STEP_LINES', async () => {
  // The row a dead node left: started, nothing done, its heartbeat old. The server's own loop takes it over.
  const { db } = server.running;
  const id = 'left-by-a-dead-node';
  await db
    .insertInto('archive_restores')
    .values({ id, account: org.account, from_ms: range.fromMs, to_ms: range.toMs, query: 'alphaword', keep_until: Date.now() + 86_400_000, status: 'running', lines_found: 0, lines_restored: 0, created_at: Date.now(), scope_json: 'null', claimed_by: 'dead', heartbeat_at: 0, position_ts: null, position_id: null })
    .execute();
  await server.restart(); // the loop looks at start
  const done = await eventually(async () => {
    const status = (await call('GET', `/v1/archive/restore/${id}`)).json;
    return status.status === 'running' ? undefined : status;
  }, 30_000, 'taken over and finished');
  assert.equal(done.status, 'done', JSON.stringify(done));
  // The alpha lines were all loaded by the first test: found again, none loaded twice.
  assert.equal(done.linesFound, 40);
  assert.equal(done.linesRestored, 0);
  const count = await sql<{ n: number }>`SELECT count(*) AS n FROM archive_restores WHERE status = 'running'`.execute(server.running.db);
  assert.equal(Number(count.rows[0].n), 0);
});
