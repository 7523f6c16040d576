import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { NewAccount } from '../accounts/accounts.js';
import { type TestServer, request, startTestServer } from '../testing/harness.js';

const DAY = 86_400_000;
const hex = () => randomBytes(4).toString('hex');
const todayStart = Math.floor(Date.now() / DAY) * DAY;
/** Two whole UTC days in the past, and the dates GET /v1/usage names them by. */
const DAY1 = todayStart - 3 * DAY;
const DAY2 = todayStart - 2 * DAY;
const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const WEB = `web-${hex()}`;
const DB = `db-${hex()}`;
const H1 = `h1-${hex()}`;
const H2 = `h2-${hex()}`;
const B_NAME = `bonly-${hex()}`;

let server: TestServer;
let A: NewAccount;
let B: NewAccount;

async function ingest(key: string, hostname: string, lines: object[]) {
  const reply = await request(`${server.url}/logs/ingest?hostname=${hostname}`, {
    method: 'POST',
    headers: { apikey: key, 'content-type': 'application/json' },
    body: JSON.stringify({ lines }),
  });
  assert.equal(reply.status, 200, reply.text);
}

const usage = (key: string, params = '') => request(`${server.url}/v1/usage${params}`, { headers: { servicekey: key } });

before(async () => {
  // A cap of two new meta fields a day, so that one line passes it.
  server = await startTestServer({ LOGSTEAD_MAX_META_FIELDS_PER_DAY: '2' });
  A = server.org;
  B = await server.createOrg('organisation B');
  // Sizes are the lines' UTF-8 bytes: "héllo" is 6.
  await ingest(A.ingestionKey, H1, [
    { line: 'aa', app: WEB, timestamp: DAY1 + 3_600_000 },
    { line: 'héllo', app: WEB, timestamp: DAY1 + 7_200_000 },
    { line: 'abc', app: WEB, timestamp: DAY2 + 1000 },
    // Meta: indexed; a type conflict; not an object (never indexed, not counted); over the daily
    // cap; over the 32 KB meta limit (kept as cut text, not counted).
    { line: 'm1', app: WEB, timestamp: DAY2 + 2000, meta: { n: 1 } },
    { line: 'm2', app: WEB, timestamp: DAY2 + 3000, meta: { n: 'text' } },
    { line: 'm3', app: WEB, timestamp: DAY2 + 4000, meta: 'plain words' },
    { line: 'm4', app: WEB, timestamp: DAY2 + 5000, meta: { p: 1, q: 2, r: 3 } },
    { line: 'm5', app: WEB, timestamp: DAY2 + 6000, meta: { big: 'x'.repeat(40_000) } },
  ]);
  await ingest(A.ingestionKey, H2, [{ line: 'x'.repeat(100), app: DB, timestamp: DAY2 + 60_000 }]);
  // Older than the retention A is given below: kept now, never counted after.
  await ingest(A.ingestionKey, H2, [{ line: 'old', app: DB, timestamp: todayStart - 20 * DAY }]);
  await ingest(B.ingestionKey, B_NAME, [{ line: 'b line', app: B_NAME, timestamp: DAY1 + 1000 }]);
  await server.withAccounts((accounts) => accounts.setRetention(A.account, 10));
});
after(() => server.close());

test("counts an organisation's lines and bytes per day, its top apps and hosts, and its retention", async () => {
  const before = Date.now();
  const reply = await usage(A.serviceKey);
  assert.equal(reply.status, 200, reply.text);
  const report = reply.json;
  assert.equal(report.account, A.account);
  assert.equal(report.retentionDays, 10);
  assert.equal(report.retentionIsDefault, false);
  assert.ok(report.from >= before - 10 * DAY && report.from <= Date.now() - 10 * DAY, 'from defaults to the start of the retention');
  assert.ok(report.to >= before && report.to <= Date.now(), 'to defaults to now');
  assert.deepEqual(report.days, [
    { day: date(DAY1), lines: 2, bytes: 8 },
    { day: date(DAY2), lines: 7, bytes: 113 },
  ]);
  assert.deepEqual(report.totals, { lines: 9, bytes: 121, metaUnindexedLines: 2 });
  assert.deepEqual(report.topApps, [
    { name: DB, lines: 1, bytes: 100 },
    { name: WEB, lines: 8, bytes: 21 },
  ]);
  assert.deepEqual(report.topHosts, [
    { name: H2, lines: 1, bytes: 100 },
    { name: H1, lines: 8, bytes: 21 },
  ]);
});

test('from and to narrow the range; a from before the retention counts from the retention', async () => {
  const reply = await usage(A.serviceKey, `?from=${DAY2 / 1000}&to=${(DAY2 + DAY) / 1000 - 1}`);
  assert.equal(reply.status, 200, reply.text);
  assert.deepEqual(reply.json.days, [{ day: date(DAY2), lines: 7, bytes: 113 }]);
  assert.equal(reply.json.from, DAY2);
  assert.equal(reply.json.to, DAY2 + DAY - 1, 'a to in seconds covers its whole last second');
  const all = await usage(A.serviceKey, `?from=0&to=${Date.now()}`);
  assert.equal(all.status, 200, all.text);
  assert.equal(all.json.totals.lines, 9, 'the 20-day-old line is past the retention');
  assert.ok(all.json.from > todayStart - 11 * DAY);
});

test("an organisation's usage never counts another's lines", async () => {
  const reply = await usage(B.serviceKey, '?from=0');
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.json.account, B.account);
  assert.deepEqual(reply.json.totals, { lines: 1, bytes: 6, metaUnindexedLines: 0 });
  assert.deepEqual(reply.json.days, [{ day: date(DAY1), lines: 1, bytes: 6 }]);
  assert.deepEqual(reply.json.topApps, [{ name: B_NAME, lines: 1, bytes: 6 }]);
  assert.deepEqual(reply.json.topHosts, [{ name: B_NAME, lines: 1, bytes: 6 }]);
  assert.equal(reply.json.retentionDays, 30);
  assert.equal(reply.json.retentionIsDefault, true);
  for (const name of [WEB, DB, H1, H2, A.account]) assert.ok(!reply.text.includes(name), `B's usage shows A's ${name}`);
  // A's report, likewise, holds nothing of B's.
  assert.ok(!(await usage(A.serviceKey)).text.includes(B_NAME));
});

test('ranks at most ten apps and hosts, by bytes', async () => {
  const other = await server.createOrg('many apps');
  await ingest(
    other.ingestionKey,
    'many',
    Array.from({ length: 12 }, (_, index) => ({ line: 'y'.repeat(index + 1), app: `app${String(index).padStart(2, '0')}`, timestamp: DAY2 })),
  );
  const reply = await usage(other.serviceKey);
  assert.equal(reply.status, 200, reply.text);
  assert.deepEqual(
    reply.json.topApps.map((app: { name: string }) => app.name),
    ['app11', 'app10', 'app09', 'app08', 'app07', 'app06', 'app05', 'app04', 'app03', 'app02'],
  );
  assert.deepEqual(reply.json.topHosts, [{ name: 'many', lines: 12, bytes: 78 }]);
  assert.deepEqual(reply.json.totals, { lines: 12, bytes: 78, metaUnindexedLines: 0 });
});

test('bad from or to get a 400 from the catalogue; no key gets 401', async () => {
  for (const params of ['?from=yesterday', '?to=-5', `?from=${DAY2}&to=${DAY1}`, '?from=1&from=2', '?to=999999999999999999']) {
    const reply = await usage(A.serviceKey, params);
    assert.equal(reply.status, 400, `${params}: ${reply.text}`);
    assert.equal(reply.json.code, 'BadRequest');
    assert.equal(typeof reply.json.error, 'string');
  }
  const anonymous = await request(`${server.url}/v1/usage`);
  assert.equal(anonymous.status, 401);
});
