/**
 * GET /metrics through a real server: scraped before and after a known load, the counters move by
 * exactly that load, and no label carries anything a client sent.
 */
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { errors } from '../http/errors.js';
import { uploadInPieces } from '../testing/upload.js';
import { type TestServer, basic, eventually, request, startTestServer } from '../testing/harness.js';
import { startHttpReceiver } from '../testing/receivers.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (comments skipped). */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(match, `not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[key] = value;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

class Scrape {
  constructor(
    readonly text: string,
    readonly samples: Sample[],
  ) {}

  /** The value of one series; fails if the series is missing. */
  value(name: string, labels: Record<string, string> = {}): number {
    const found = this.samples.find(
      (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    );
    assert.ok(found, `series ${name}${JSON.stringify(labels)} is exposed`);
    return found.value;
  }
}

async function scrape(server: TestServer, query = '', headers: Record<string, string> = {}): Promise<Scrape> {
  const reply = await request(`${server.url}/metrics${query}`, { headers });
  assert.equal(reply.status, 200, reply.text);
  return new Scrape(reply.text, parseExposition(reply.text));
}

let counter = 0;
/** Unique, so that finding it anywhere in a scrape means user input leaked into a label. */
const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}z${counter++}q`;

async function ingestJson(server: TestServer, body: Buffer, options: { query?: string; headers?: Record<string, string> } = {}) {
  return request(`${server.url}/logs/ingest?${options.query ?? 'hostname=metrics-test'}`, {
    method: 'POST',
    headers: { apikey: server.org.ingestionKey, 'content-type': 'application/json', ...options.headers },
    body,
  });
}

describe('metrics of an open server', () => {
  let server: TestServer;
  let hooks: Awaited<ReturnType<typeof startHttpReceiver>>;
  before(async () => {
    hooks = await startHttpReceiver();
    server = await startTestServer({ LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS: 'true', LOGSTEAD_DELIVERY_RETRY_BASE_MS: '20' });
  });
  after(async () => {
    await server.close();
    await hooks.close();
  });

  test('answers without credentials in the Prometheus text format, with process metrics and every series from the start', async () => {
    const reply = await request(`${server.url}/metrics`);
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    const metrics = new Scrape(reply.text, parseExposition(reply.text));
    assert.ok(metrics.value('process_resident_memory_bytes') > 0);
    assert.ok(metrics.value('process_cpu_user_seconds_total') >= 0);
    for (const reason of ['bad_request', 'unauthorized', 'forbidden', 'too_large', 'overloaded', 'store_unavailable']) {
      assert.equal(metrics.value('logstead_ingest_rejections_total', { reason }), 0);
    }
    for (const reason of ['age', 'size']) {
      assert.equal(metrics.value('logstead_retention_dropped_partitions_total', { reason }), 0);
      assert.equal(metrics.value('logstead_retention_dropped_lines_total', { reason }), 0);
    }
    assert.equal(metrics.value('logstead_deliveries_total', { channel: 'pagerduty', outcome: 'failed' }), 0);
    assert.equal(metrics.value('logstead_query_duration_seconds_count', { route: '/v2/export' }), 0);
    assert.equal(metrics.value('logstead_ingest_queued_lines'), 0);
    assert.equal(metrics.value('logstead_ingest_waiting_requests'), 0);
  });

  test('1,000 lines in two requests move lines, line bytes and body bytes by exactly that load', async () => {
    const host = unique('hostmetric');
    const app = unique('appmetric');
    // Multi-byte text, so that characters and bytes differ.
    const lines = Array.from({ length: 1000 }, (_, i) => ({ line: `line ${i} naïve café ✓ ${'x'.repeat(i % 50)}`, app }));
    const lineBytes = lines.reduce((sum, { line }) => sum + Buffer.byteLength(line), 0);
    const plain = Buffer.from(JSON.stringify({ lines: lines.slice(0, 600) }));
    const gzipped = zlib.gzipSync(JSON.stringify({ lines: lines.slice(600) }));

    const before = await scrape(server);
    assert.equal((await ingestJson(server, plain, { query: `hostname=${host}` })).status, 200);
    const gzipReply = await ingestJson(server, gzipped, { query: `hostname=${host}`, headers: { 'content-encoding': 'gzip' } });
    assert.equal(gzipReply.status, 200, gzipReply.text);
    const afterLoad = await scrape(server);

    const delta = (name: string, labels?: Record<string, string>) => afterLoad.value(name, labels) - before.value(name, labels);
    assert.equal(delta('logstead_ingest_lines_total', { protocol: 'mezmo' }), 1000);
    assert.equal(delta('logstead_ingest_bytes_total', { protocol: 'mezmo' }), lineBytes, 'the UTF-8 bytes of the line texts');
    assert.equal(delta('logstead_ingest_request_bytes_total'), plain.length + gzipped.length, 'body bytes as sent, compressed or not');
    assert.equal(delta('logstead_ingest_requests_total'), 2);
    for (const reason of ['bad_request', 'unauthorized', 'forbidden', 'too_large', 'overloaded']) {
      assert.equal(delta('logstead_ingest_rejections_total', { reason }), 0);
    }
    assert.ok(delta('logstead_ingest_flush_duration_seconds_count') >= 1, 'the writes were timed');
    assert.equal(delta('logstead_ingest_flushed_lines_total'), 1000);
    assert.equal(afterLoad.value('logstead_ingest_queued_lines'), 0, 'nothing waits once both are acknowledged');
    assert.ok(afterLoad.value('logstead_store_rows') >= 1000);
    assert.ok(afterLoad.value('logstead_store_parts') > 0);
    assert.ok(afterLoad.value('logstead_store_bytes_on_disk') > 0);
    assert.ok(afterLoad.value('logstead_store_merges_running') >= 0);
    // Read by the same query as the rows above, so that a broken one would have left them at 0.
    assert.match(afterLoad.text, /^logstead_store_merges_memory_bytes \d+$/m, "the merges' memory is reported");
    for (const input of [host, app]) assert.ok(!afterLoad.text.includes(input), `${input} appears nowhere in the scrape`);
  });

  test('each refused ingest request moves its reason, and only that', async () => {
    const before = await scrape(server);
    const noKey = await request(`${server.url}/logs/ingest?hostname=h`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"lines":[]}' });
    assert.equal(noKey.status, 401);
    const wrongKey = await ingestJson(server, Buffer.from('{"lines":[{"line":"x"}]}'), { headers: { apikey: unique('nokey') } });
    assert.equal(wrongKey.status, 403);
    assert.equal((await ingestJson(server, Buffer.from('{"nolines":true}'))).status, 400);
    assert.equal((await ingestJson(server, Buffer.from('{"lines":[{"line":"x"}]}'), { query: 'hostname=' })).status, 400);
    // 11 MB of JSON inflated from a few kilobytes: over the 10 MB limit.
    const bomb = zlib.gzipSync(Buffer.from(`{"lines":[{"line":"${'a'.repeat(11 * 1024 * 1024)}"}]}`));
    const tooLarge = await ingestJson(server, bomb, { headers: { 'content-encoding': 'gzip' } });
    assert.equal(tooLarge.status, 413);
    const afterRefusals = await scrape(server);
    const delta = (reason: string) =>
      afterRefusals.value('logstead_ingest_rejections_total', { reason }) - before.value('logstead_ingest_rejections_total', { reason });
    assert.equal(delta('unauthorized'), 1);
    assert.equal(delta('forbidden'), 1);
    assert.equal(delta('bad_request'), 2);
    assert.equal(delta('too_large'), 1);
    assert.equal(delta('overloaded'), 0);
    assert.equal(afterRefusals.value('logstead_ingest_requests_total') - before.value('logstead_ingest_requests_total'), 5);
    assert.equal(afterRefusals.value('logstead_ingest_lines_total', { protocol: 'mezmo' }), before.value('logstead_ingest_lines_total', { protocol: 'mezmo' }), 'no refused line counts');
  });

  test('export, histogram and viewer requests are timed by route pattern, not by the URL sent', async () => {
    const word = unique('queryword');
    const before = await scrape(server);
    const range = `from=0&to=${Date.now() + 60_000}`;
    const headers = { servicekey: server.org.serviceKey };
    for (const path of [`/v1/export?${range}&query=${word}`, `/v2/export?${range}&query=${word}`, `/v1/histogram?${range}&query=${word}`, `/v1/viewer/facets?${range}&query=${word}`, `/v1/viewer/fields?${range}&query=${word}`]) {
      const reply = await request(`${server.url}${path}`, { headers });
      assert.equal(reply.status, 200, `${path}: ${reply.text}`);
    }
    assert.equal((await request(`${server.url}/v1/export?${range}&query=${word}`)).status, 401, 'a refused read is timed too');
    const afterReads = await scrape(server);
    const delta = (route: string) =>
      afterReads.value('logstead_query_duration_seconds_count', { route }) - before.value('logstead_query_duration_seconds_count', { route });
    assert.equal(delta('/v1/export'), 2);
    assert.equal(delta('/v2/export'), 1);
    assert.equal(delta('/v1/histogram'), 1);
    assert.equal(delta('/v1/viewer/facets'), 1);
    assert.equal(delta('/v1/viewer/fields'), 1);
    assert.ok(!afterReads.text.includes(word), 'the query appears nowhere in the scrape');
    const routes = new Set(afterReads.samples.filter((sample) => sample.labels.route !== undefined).map((sample) => sample.labels.route));
    assert.deepEqual([...routes].sort(), ['/v1/export', '/v1/histogram', '/v1/usage', '/v1/viewer/context', '/v1/viewer/facets', '/v1/viewer/fields', '/v2/export']);
  });

  test('the live-tail gauge counts open tails: 1 while one is open, 0 once it closes', async () => {
    assert.equal((await scrape(server)).value('logstead_tail_clients'), 0);
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/ws/tail`, 'json', { headers: { authorization: `Token ${server.org.serviceKey}` } });
    await new Promise((resolve, reject) => {
      socket.once('message', resolve); // the "connected" meta message: the tail is subscribed
      socket.once('error', reject);
    });
    assert.equal((await scrape(server)).value('logstead_tail_clients'), 1);
    socket.close();
    await eventually(async () => ((await scrape(server)).value('logstead_tail_clients') === 0 ? true : undefined), 5000, 'the tail to close');
  });

  test('an alert that fires is evaluated, counted as fired, and its webhook deliveries counted by outcome', async () => {
    const word = unique('alertword');
    const viewName = unique('viewname');
    const path = `/${unique('hookpath')}`;
    const reply = await request(`${server.url}/v1/config/view`, {
      method: 'POST',
      headers: { servicekey: server.org.serviceKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: viewName,
        query: word,
        channels: [{ integration: 'webhook', url: `${hooks.url}${path}`, triggerlimit: 1, triggerinterval: '30', immediate: true, terminal: false }],
      }),
    });
    assert.equal(reply.status, 200, reply.text);
    const before = await scrape(server);
    hooks.answer(500); // the first attempt fails and is retried
    assert.equal((await ingestJson(server, Buffer.from(JSON.stringify({ lines: [{ line: `${word} happened` }] })))).status, 200);
    await eventually(() => (hooks.received.filter((hook) => hook.path === path).length === 2 ? true : undefined), 5000, 'the retried webhook');
    const afterFire = await eventually(async () => {
      const now = await scrape(server);
      return now.value('logstead_deliveries_total', { channel: 'webhook', outcome: 'delivered' }) > before.value('logstead_deliveries_total', { channel: 'webhook', outcome: 'delivered' }) ? now : undefined;
    });
    const delta = (name: string, labels: Record<string, string>) => afterFire.value(name, labels) - before.value(name, labels);
    assert.equal(delta('logstead_deliveries_total', { channel: 'webhook', outcome: 'retry' }), 1);
    assert.equal(delta('logstead_deliveries_total', { channel: 'webhook', outcome: 'delivered' }), 1);
    assert.equal(delta('logstead_deliveries_total', { channel: 'webhook', outcome: 'failed' }), 0);
    assert.equal(delta('logstead_alert_firings_total', { kind: 'immediate' }), 1);
    assert.equal(delta('logstead_alert_evaluations_total', { trigger: 'lines' }), 1, 'one batch checked against the alerts');
    for (const input of [word, viewName, path.slice(1), hooks.url]) assert.ok(!afterFire.text.includes(input), `${input} appears nowhere in the scrape`);
  });
});

/** POSTs a body in pieces, as a slow shipper does; resolves with the status. */
async function slowPost(server: TestServer, body: Buffer, pieces: number, pauseMs: number): Promise<number> {
  const headers = { authorization: basic(server.org.ingestionKey), 'content-type': 'application/json' };
  return (await uploadInPieces(`${server.url}/logs/ingest?hostname=burst`, headers, body, { pieces, pauseMs })).status;
}

describe('metrics of a server shedding load', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer({ LOGSTEAD_MAX_QUEUED_LINES: '1', LOGSTEAD_INGEST_WAIT_MS: '1' })));
  after(() => server.close());

  test('every 503 shed moves the shed counter and the overloaded reason once; accepted lines still count exactly', async () => {
    const before = await scrape(server);
    const body = Buffer.from(JSON.stringify({ lines: Array.from({ length: 5000 }, (_, i) => ({ line: `burst ${i} ${'y'.repeat(80)}` })) }));
    // Staggered, so later requests arrive while earlier ones' lines wait for the store.
    const statuses = await Promise.all(
      Array.from({ length: 16 }, async (_, i) => {
        await new Promise((resolve) => setTimeout(resolve, i * 40));
        return slowPost(server, body, 8, 25);
      }),
    );
    const shed = statuses.filter((status) => status === 503).length;
    const accepted = statuses.filter((status) => status === 200).length;
    assert.ok(shed > 0, 'with no wait and a one-line queue, the burst is shed in part');
    assert.equal(shed + accepted, statuses.length);
    const afterBurst = await scrape(server);
    const delta = (name: string, labels?: Record<string, string>) => afterBurst.value(name, labels) - before.value(name, labels);
    assert.equal(delta('logstead_ingest_shed_total'), shed);
    assert.equal(delta('logstead_ingest_rejections_total', { reason: 'overloaded' }), shed);
    assert.equal(delta('logstead_ingest_lines_total', { protocol: 'mezmo' }), accepted * 5000);
    assert.equal(delta('logstead_ingest_requests_total'), statuses.length);
  });
});

describe('metrics behind LOGSTEAD_METRICS_KEY', () => {
  let server: TestServer;
  const key = 'scrape-key-4f1c';
  before(async () => (server = await startTestServer({ LOGSTEAD_METRICS_KEY: key })));
  after(() => server.close());

  test('refuses a scraper without the key, or with another, with the catalogued 401', async () => {
    for (const [query, headers] of [
      ['', {}],
      ['?key=wrong', {}],
      ['', { authorization: 'Bearer wrong' }],
      ['', { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` }],
    ] as Array<[string, Record<string, string>]>) {
      const reply = await request(`${server.url}/metrics${query}`, { headers });
      assert.equal(reply.status, 401, `${query} ${JSON.stringify(headers)}`);
      assert.deepEqual(reply.json, errors.metricsUnauthorized().body);
      assert.equal(reply.headers.get('www-authenticate'), 'Bearer realm="metrics"');
    }
  });

  test('answers a scraper presenting the key as ?key= or as a bearer token', async () => {
    assert.ok((await scrape(server, `?key=${key}`)).value('logstead_ingest_lines_total') >= 0);
    assert.ok((await scrape(server, '', { authorization: `Bearer ${key}` })).value('logstead_ingest_lines_total') >= 0);
  });
});
