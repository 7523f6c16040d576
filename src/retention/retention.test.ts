import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startLogstead } from '../app.js';
import { loadSettings } from '../settings.js';
import { testEngineEnv } from '../testing/log-engine.js';
import { type TestServer, jsonLines, request, startTestServer } from '../testing/harness.js';
import { DAY_MS } from './policy.js';

// Retention through the real server: what is kept at ingest, what reads return at once when a
// retention changes, and what a start removes from disk.

let server: TestServer;
before(async () => {
  server = await startTestServer({ LOGSTEAD_RETENTION_DAYS: '30' });
});
after(() => server.close());

async function ingest(key: string, lines: Array<{ line: string; timestamp?: number }>) {
  const reply = await request(`${server.url}/logs/ingest?hostname=h`, {
    method: 'POST',
    headers: { apikey: key, 'content-type': 'application/json' },
    body: JSON.stringify({ lines }),
  });
  assert.equal(reply.status, 200, reply.text);
}

async function exported(serviceKey: string, word: string): Promise<Array<{ _line: string; _ts: number }>> {
  const reply = await request(`${server.url}/v1/export?from=0&to=${Date.now() + 3 * DAY_MS}&query=${word}`, { headers: { servicekey: serviceKey } });
  assert.equal(reply.status, 200, reply.text);
  return jsonLines(reply.text);
}

test('past times are kept back to the retention; older lines are acknowledged but not kept; far-future ones take the receive time', async () => {
  const org = await server.createOrg('keeps-five-days');
  await server.withAccounts((accounts) => accounts.setRetention(org.account, 5));
  const now = Date.now();
  const lines = [
    { line: 'pastkept recent', timestamp: now - 3_600_000 },
    { line: 'pastkept fourdays', timestamp: now - 4 * DAY_MS },
    { line: 'pastkept tendays', timestamp: now - 10 * DAY_MS },
    { line: 'pastkept future', timestamp: now + 2 * DAY_MS },
  ];
  await ingest(org.ingestionKey, lines);
  await ingest(server.org.ingestionKey, lines);
  const five = await exported(org.serviceKey, 'pastkept');
  assert.deepEqual(five.map((line) => line._line).sort(), ['pastkept fourdays', 'pastkept future', 'pastkept recent']);
  assert.equal(five.find((line) => line._line === 'pastkept fourdays')!._ts, now - 4 * DAY_MS, 'a replayed line keeps its time');
  assert.ok(Math.abs(five.find((line) => line._line === 'pastkept future')!._ts - now) < 60_000, 'two days ahead becomes the receive time');
  assert.equal(await server.running.store.storedLines(org.account), 3, 'the ten-day-old line was not written at all');
  const thirty = await exported(server.org.serviceKey, 'pastkept');
  assert.equal(thirty.length, 4, 'the default 30 days keep the ten-day-old line');
});

test('shortening a retention hides older lines at once, and the next start removes them from disk', async () => {
  const org = await server.createOrg('shortened');
  const now = Date.now();
  await ingest(org.ingestionKey, [
    { line: 'shorten today', timestamp: now - 60_000 },
    { line: 'shorten lastweek', timestamp: now - 8 * DAY_MS },
  ]);
  assert.equal((await exported(org.serviceKey, 'shorten')).length, 2);
  await server.withAccounts((accounts) => accounts.setRetention(org.account, 7)); // as `logstead org retention` does
  assert.deepEqual((await exported(org.serviceKey, 'shorten')).map((line) => line._line), ['shorten today'], 'hidden at once');
  assert.equal(await server.running.store.storedLines(org.account), 2, 'still on disk until retention runs');
  await server.restart();
  assert.equal(await server.running.store.storedLines(org.account), 1, 'removed at start');
  assert.deepEqual((await exported(org.serviceKey, 'shorten')).map((line) => line._line), ['shorten today']);
  const list = await server.withAccounts(async (accounts) => (await accounts.list()).find((entry) => entry.account === org.account));
  assert.equal(list?.retentionDays, 7);
});

test('days no organisation keeps are dropped whole, and the disk cap drops the oldest days first', async () => {
  const org = await server.createOrg('days');
  const now = Date.now();
  await ingest(org.ingestionKey, [
    { line: 'daydrop now', timestamp: now },
    { line: 'daydrop two', timestamp: now - 2 * DAY_MS },
    { line: 'daydrop twenty', timestamp: now - 20 * DAY_MS },
  ]);
  const before = (await server.running.store.days()).length;
  // The same data directory, restarted with a 9-day default and then with a tiny disk cap. Nine,
  // not ten: the first test left a line exactly ten days old, which a 10-day start would drop or
  // keep by how many milliseconds had passed since, and the cap's start, later, would drop by age.
  await server.running.close();
  const settings = loadSettings({ LOGSTEAD_PORT: '0', LOGSTEAD_DATA_DIR: server.dataDir, LOGSTEAD_LOG_LEVEL: 'warn', LOGSTEAD_RETENTION_DAYS: '9', ...(await testEngineEnv(server.dataDir)) });
  let running = await startLogstead(settings);
  try {
    const days = await running.store.days();
    assert.ok(days.every((day) => day.newestMs >= now - 9 * DAY_MS), 'no day older than nine days is left');
    assert.ok(days.length < before, 'the twenty-day-old day was dropped whole');
    await running.close();
    running = await startLogstead({ ...settings, maxDiskBytes: 1 });
    const left = await running.store.days();
    assert.equal(left.length, 1, 'over the cap, only the newest day stays');
    const scrape = await (await fetch(`${running.url}/metrics`)).text();
    assert.ok(scrape.includes(`logstead_retention_dropped_partitions_total{reason="size"} ${days.length - 1}\n`), 'each day dropped is counted');
    assert.equal(await running.store.storedLines(org.account), 1);
  } finally {
    await running.close();
    await server.restart(); // back to the harness's own settings, so the file's after() stops it
  }
});
