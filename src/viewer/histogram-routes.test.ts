import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestServer, request, startTestServer } from '../testing/harness.js';

let server: TestServer;
const START = Math.floor((Date.now() - 3_600_000) / 60_000) * 60_000; // a whole minute, an hour ago

before(async () => {
  server = await startTestServer();
  // Minute m holds m + 1 lines; every third line is an error mentioning a timeout.
  const lines = [];
  for (let minute = 0; minute < 10; minute++) {
    for (let i = 0; i <= minute; i++) {
      const error = (minute + i) % 3 === 0;
      lines.push({ line: error ? `request timeout ${i}` : `request ok ${i}`, level: error ? 'error' : 'info', timestamp: START + minute * 60_000 + i * 1000 });
    }
  }
  const reply = await request(`${server.url}/logs/ingest?hostname=h`, {
    method: 'POST',
    headers: { apikey: server.org.ingestionKey, 'content-type': 'application/json' },
    body: JSON.stringify({ lines }),
  });
  assert.equal(reply.status, 200);
});
after(() => server.close());

const histogram = (params: string, key = server.org.serviceKey) =>
  request(`${server.url}/v1/histogram?from=${START}&to=${START + 600_000 - 1}&${params}`, { headers: { servicekey: key } });

test('counts matching lines per bucket, split by level', async () => {
  const reply = await histogram('buckets=10');
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.json.interval, 60_000);
  assert.deepEqual(reply.json.buckets.map((bucket: { count: number }) => bucket.count), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  assert.deepEqual(reply.json.buckets.map((bucket: { ts: number }) => bucket.ts), Array.from({ length: 10 }, (_, m) => START + m * 60_000));
  for (const bucket of reply.json.buckets) {
    assert.equal((bucket.levels.ERROR ?? 0) + (bucket.levels.INFO ?? 0), bucket.count);
  }
  const five = await histogram('buckets=5');
  assert.deepEqual(five.json.buckets.map((bucket: { count: number }) => bucket.count), [3, 7, 11, 15, 19]);
});

test('takes the same filters and query as export', async () => {
  const errors = await histogram('buckets=1&levels=error');
  const timeouts = await histogram('buckets=1&query=timeout');
  assert.equal(errors.json.buckets[0].count, timeouts.json.buckets[0].count);
  assert.equal(errors.json.buckets[0].count, 19);
  const bad = await histogram('query=(timeout');
  assert.equal(bad.status, 400);
  assert.equal(bad.json.position, 8);
});

test('refuses bad buckets and missing keys, and never counts another organisation', async () => {
  assert.equal((await histogram('buckets=0')).status, 400);
  assert.equal((await histogram('buckets=ten')).status, 400);
  assert.equal((await histogram('buckets=5', 'nope')).status, 401);
  const other = await server.createOrg('other');
  const reply = await histogram('buckets=2', other.serviceKey);
  assert.equal(reply.status, 200);
  assert.deepEqual(reply.json.buckets.map((bucket: { count: number }) => bucket.count), [0, 0]);
});

test('a range shorter than the buckets asked for has fewer buckets, none starting after its end', async () => {
  const short = await request(`${server.url}/v1/histogram?from=${START}&to=${START + 1}&buckets=1000`, { headers: { servicekey: server.org.serviceKey } });
  assert.equal(short.status, 200, short.text);
  assert.equal(short.json.interval, 1);
  assert.deepEqual(short.json.buckets.map((bucket: { ts: number; count: number }) => [bucket.ts, bucket.count]), [[START, 1], [START + 1, 0]]);
  // 1,001 ms in 1,000 buckets: 2 ms each, so 501 of them, the last starting at the range's last ms.
  const uneven = await request(`${server.url}/v1/histogram?from=${START}&to=${START + 1000}&buckets=1000`, { headers: { servicekey: server.org.serviceKey } });
  assert.equal(uneven.json.interval, 2);
  assert.equal(uneven.json.buckets.length, 501);
  assert.equal(uneven.json.buckets.at(-1).ts, START + 1000);
  assert.equal(uneven.json.buckets.reduce((sum: number, bucket: { count: number }) => sum + bucket.count, 0), 1);
});
