import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import zlib from 'node:zlib';
import snappy from 'snappyjs';
import winston from 'winston';
// The maintained winston transport for Loki, unmodified: protobuf + snappy (its native `snappy`
// dependency) by default, or JSON with `json: true`.
import LokiTransport from 'winston-loki';
import { type TestServer, basic, jsonLines, request, startTestServer } from '../../testing/harness.js';
import { PushRequest } from './schema.js';

let server: TestServer;
let key: string;
before(async () => {
  server = await startTestServer();
  key = server.org.ingestionKey;
});
after(() => server.close());

const word = () => `loki${randomBytes(5).toString('hex')}`;
const PUSH = '/loki/api/v1/push';

/** The organisation's lines holding `marker`, oldest first. */
async function linesWith(marker: string): Promise<any[]> {
  const reply = await request(`${server.url}/v1/export?from=0&to=${Date.now() + 60_000}&prefer=head&query=${marker}`, { headers: { servicekey: server.org.serviceKey } });
  assert.equal(reply.status, 200, reply.text);
  return jsonLines(reply.text);
}

function push(body: Buffer | string, headers: Record<string, string>) {
  return request(`${server.url}${PUSH}`, { method: 'POST', headers, body });
}

/** A protobuf push as Promtail sends it: logproto.PushRequest in a snappy block. */
function protobufBody(streams: Array<{ labels: string; entries: Array<{ ms: number; line: string; metadata?: Record<string, string> }> }>): Buffer {
  const message = PushRequest.fromObject({
    streams: streams.map((stream) => ({
      labels: stream.labels,
      entries: stream.entries.map((entry) => ({
        timestamp: { seconds: Math.floor(entry.ms / 1000), nanos: (entry.ms % 1000) * 1e6 + 789 },
        line: entry.line,
        structuredMetadata: Object.entries(entry.metadata ?? {}).map(([name, value]) => ({ name, value })),
      })),
    })),
  });
  return Buffer.from(snappy.compress(PushRequest.encode(message).finish()));
}

function winstonLoki(options: Record<string, unknown>) {
  const errors: unknown[] = [];
  const transport = new LokiTransport({ host: server.url, replaceTimestamp: false, gracefulShutdown: false, interval: 0.1, onConnectionError: (error: unknown) => errors.push(error), ...options });
  const logger = winston.createLogger({ level: 'debug', transports: [transport] });
  return { logger, transport, errors };
}

describe('winston-loki, a real Loki client', () => {
  test('protobuf + snappy with the key in Basic auth: host, app, level, time and meta', async () => {
    const marker = word();
    const { logger, transport, errors } = winstonLoki({ basicAuth: `${key}:`, labels: { app: 'shop', host: 'web-1', env: 'prod' } });
    assert.equal((transport as any).batcher.contentType, 'application/x-protobuf', 'winston-loki sends protobuf (its snappy loaded)');
    const t0 = Date.now() - 5_000;
    logger.info(`${marker} order placed`, { timestamp: new Date(t0).toISOString() });
    logger.warn(`${marker} slow payment`, { timestamp: new Date(t0 + 7).toISOString(), labels: { region: 'eu' } });
    logger.error(`${marker} payment failed`, { timestamp: new Date(t0 + 9).toISOString() });
    await transport.flush();
    logger.close();
    assert.deepEqual(errors, []);
    const lines = await linesWith(marker);
    assert.deepEqual(
      lines.map((line) => [line._line, line.level, line._host, line._app, line._ts]),
      // winston-loki's default line: the message, then the rest of winston's info as JSON.
      [
        [`${marker} order placed {"level":"info"}`, 'INFO', 'web-1', 'shop', t0],
        [`${marker} slow payment {"level":"warn"}`, 'WARN', 'web-1', 'shop', t0 + 7],
        [`${marker} payment failed {"level":"error"}`, 'ERROR', 'web-1', 'shop', t0 + 9],
      ],
    );
    assert.deepEqual(lines[0].meta, { env: 'prod' });
    assert.deepEqual(lines[1].meta, { env: 'prod', region: 'eu' });
  });

  test('JSON with Bearer and X-Scope-OrgID: structured metadata lands in meta', async () => {
    const marker = word();
    const { logger, transport, errors } = winstonLoki({
      json: true,
      headers: { authorization: `Bearer ${key}`, 'X-Scope-OrgID': server.org.account },
      labels: { job: 'billing', instance: 'db-2' },
    });
    assert.equal((transport as any).batcher.contentType, 'application/json');
    logger.debug(`${marker} invoice`, { invoice: 'INV-7' });
    await transport.flush();
    logger.close();
    assert.deepEqual(errors, []);
    const [line] = await linesWith(marker);
    assert.equal(line._host, 'db-2');
    assert.equal(line._app, 'billing');
    assert.equal(line.level, 'DEBUG');
    assert.equal(line.meta.invoice, 'INV-7');
  });
});

describe('JSON push over raw HTTP', () => {
  test('labels map to host, app and level, the rest and structured metadata to meta; ns time kept to the ms', async () => {
    const marker = word();
    const ms = Date.now() - 60_000;
    const body = {
      streams: [
        {
          stream: { job: 'api', instance: '10.0.0.1:9100', detected_level: 'error', region: 'eu', hostname: 'other' },
          values: [
            [`${ms}456789`, `${marker} first`, { trace_id: 'abc123', region: 'us' }],
            [`${ms + 1}000000`, `${marker} second`],
          ],
        },
        { stream: { service_name: 'checkout' }, values: [[`${ms + 2}000000`, `${marker} third`]] },
      ],
    };
    const reply = await push(JSON.stringify(body), { 'content-type': 'application/json', authorization: basic(key) });
    assert.equal(reply.status, 204, reply.text);
    assert.equal(reply.text, '');
    const lines = await linesWith(marker);
    assert.deepEqual(
      lines.map((line) => [line._line, line._host, line._app, line.level, line._ts]),
      [
        [`${marker} first`, 'other', 'api', 'ERROR', ms],
        [`${marker} second`, 'other', 'api', 'ERROR', ms + 1],
        // No level label: as on /logs/ingest, the level is the line's own or none.
        [`${marker} third`, 'unknown', 'checkout', '', ms + 2],
      ],
    );
    assert.deepEqual(lines[0].meta, { instance: '10.0.0.1:9100', region: 'us', trace_id: 'abc123' });
    assert.deepEqual(lines[1].meta, { instance: '10.0.0.1:9100', region: 'eu' });
  });

  test('gzip JSON, the apikey header, and Basic with the organisation as user and the key as password', async () => {
    const marker = word();
    const body = zlib.gzipSync(JSON.stringify({ streams: [{ stream: { app: 'gz' }, values: [[`${Date.now()}000000`, `${marker} zipped`]] }] }));
    assert.equal((await push(body, { 'content-type': 'application/json', 'content-encoding': 'gzip', apikey: key })).status, 204);
    const plain = JSON.stringify({ streams: [{ stream: { app: 'gz' }, values: [[`${Date.now()}000000`, `${marker} basic`]] }] });
    assert.equal((await push(plain, { 'content-type': 'application/json', authorization: basic(server.org.account, key) })).status, 204);
    assert.equal((await push(plain, { 'content-type': 'application/json', authorization: basic(key, key) })).status, 204);
    assert.equal((await linesWith(marker)).length, 3);
  });

  test('a protobuf push built here: labels string, Timestamp and structured metadata', async () => {
    const marker = word();
    const ms = Date.now() - 1000;
    const body = protobufBody([{ labels: '{job="promtail", host="edge-1", level="warn", path="/var/log/a\\"b.log"}', entries: [{ ms, line: `${marker} proto`, metadata: { pod: 'p-1' } }] }]);
    const reply = await push(body, { 'content-type': 'application/x-protobuf', authorization: `Bearer ${key}` });
    assert.equal(reply.status, 204, reply.text);
    const [line] = await linesWith(marker);
    assert.deepEqual([line._host, line._app, line.level, line._ts], ['edge-1', 'promtail', 'WARN', ms]);
    assert.deepEqual(line.meta, { path: '/var/log/a"b.log', pod: 'p-1' });
  });

  test('a line over the line limit is cut, as on /logs/ingest', async () => {
    const marker = word();
    const long = `${marker} ${'x'.repeat(40_000)}`;
    const reply = await push(JSON.stringify({ streams: [{ stream: { app: 'long' }, values: [[`${Date.now()}000000`, long]] }] }), { 'content-type': 'application/json', apikey: key });
    assert.equal(reply.status, 204);
    const [line] = await linesWith(marker);
    assert.equal(Buffer.byteLength(line._line), 16 * 1024);
  });
});

describe("bad input gets Loki's answer and stores nothing", () => {
  const marker = word();
  const good = (extra = '') => ({ stream: { app: 'edge' }, values: [[`${Date.now()}000000`, `${marker} ${extra}`]] });
  const json = (body: unknown) => JSON.stringify(body);

  const cases: Array<{ name: string; body: Buffer | string; headers: Record<string, string>; status: number; text?: RegExp }> = [
    { name: 'no key', body: json({ streams: [good()] }), headers: { 'content-type': 'application/json' }, status: 401 },
    { name: 'a wrong key', body: json({ streams: [good()] }), headers: { 'content-type': 'application/json', authorization: basic('0'.repeat(32)) }, status: 401 },
    { name: 'a service key', body: json({ streams: [good()] }), headers: { 'content-type': 'application/json', apikey: 'SERVICE' }, status: 401, text: /service key/ },
    { name: 'an X-Scope-OrgID of another organisation', body: json({ streams: [good()] }), headers: { 'content-type': 'application/json', apikey: 'KEY', 'x-scope-orgid': 'someone-else' }, status: 401, text: /X-Scope-OrgID/ },
    { name: 'an X-Scope-OrgID without a key', body: json({ streams: [good()] }), headers: { 'content-type': 'application/json', 'x-scope-orgid': 'ORG' }, status: 401 },
    { name: 'a stream without labels, beside a good one', body: json({ streams: [good(), { stream: {}, values: [[`${Date.now()}000000`, `${marker} nolabels`]] }] }), headers: { 'content-type': 'application/json', apikey: 'KEY' }, status: 400, text: /^error at least one label pair is required per stream\n$/ },
    { name: 'a stream with no stream field', body: json({ streams: [{ values: [[`${Date.now()}000000`, `${marker} x`]] }] }), headers: { 'content-type': 'application/json', apikey: 'KEY' }, status: 400, text: /label pair/ },
    { name: 'a label value that is not a string', body: json({ streams: [{ stream: { app: 1 }, values: [] }] }), headers: { 'content-type': 'application/json', apikey: 'KEY' }, status: 400 },
    { name: 'a timestamp that is not ns', body: json({ streams: [{ stream: { app: 'a' }, values: [['yesterday', `${marker} x`]] }] }), headers: { 'content-type': 'application/json', apikey: 'KEY' }, status: 400, text: /timestamp/ },
    { name: 'a value without a line', body: json({ streams: [good(), { stream: { app: 'a' }, values: [[`${Date.now()}000000`]] }] }), headers: { 'content-type': 'application/json', apikey: 'KEY' }, status: 400 },
    { name: 'broken JSON', body: '{"streams":[', headers: { 'content-type': 'application/json', apikey: 'KEY' }, status: 400 },
    { name: 'a body that is not snappy', body: Buffer.from('this is not snappy at all'), headers: { 'content-type': 'application/x-protobuf', apikey: 'KEY' }, status: 400, text: /snappy/ },
    { name: 'snappy that holds no protobuf', body: Buffer.from(snappy.compress(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]))), headers: { 'content-type': 'application/x-protobuf', apikey: 'KEY' }, status: 400, text: /protobuf/ },
    { name: 'protobuf labels that do not parse', body: protobufBody([{ labels: '{app=edge}', entries: [{ ms: Date.now(), line: `${marker} x` }] }]), headers: { 'content-type': 'application/x-protobuf', apikey: 'KEY' }, status: 400, text: /error parsing labels/ },
    { name: 'protobuf with empty labels', body: protobufBody([{ labels: '{}', entries: [{ ms: Date.now(), line: `${marker} x` }] }]), headers: { 'content-type': 'application/x-protobuf', apikey: 'KEY' }, status: 400, text: /label pair/ },
    // A snappy block declaring 100 MB (the varint 0x80 0x80 0x80 0x32): refused from its header, before anything is inflated.
    { name: 'a snappy bomb', body: Buffer.from([0x80, 0x80, 0x80, 0x32, 0x00]), headers: { 'content-type': 'application/x-protobuf', apikey: 'KEY' }, status: 413 },
    { name: 'a gzip bomb', body: zlib.gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20)), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', apikey: 'KEY' }, status: 413 },
    { name: 'a corrupt gzip body', body: Buffer.from([0x1f, 0x8b, 0x08, 0, 1, 2, 3, 4, 5, 6, 7]), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', apikey: 'KEY' }, status: 400 },
    { name: 'an unknown content encoding', body: json({ streams: [good()] }), headers: { 'content-type': 'application/json', 'content-encoding': 'br', apikey: 'KEY' }, status: 415 },
    { name: 'an unknown content type', body: json({ streams: [good()] }), headers: { 'content-type': 'text/plain', apikey: 'KEY' }, status: 415 },
  ];
  const fill = (headers: Record<string, string>) =>
    Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, value === 'KEY' ? key : value === 'SERVICE' ? server.org.serviceKey : value === 'ORG' ? server.org.account : value]));

  for (const { name, body, headers, status, text } of cases) {
    test(name, async () => {
      const reply = await push(body, fill(headers));
      assert.equal(reply.status, status, reply.text);
      assert.match(reply.headers.get('content-type') ?? '', /^text\/plain/);
      if (text) assert.match(reply.text, text);
    });
  }

  test('empty streams are accepted and store nothing', async () => {
    for (const body of [{ streams: [] }, {}, { streams: [{ stream: { app: 'a' }, values: [] }] }]) {
      assert.equal((await push(JSON.stringify(body), { 'content-type': 'application/json', apikey: key })).status, 204);
    }
    assert.equal((await push(protobufBody([]), { 'content-type': 'application/x-protobuf', apikey: key })).status, 204);
  });

  test('nothing of a refused request was stored', async () => {
    // A good push after them, so that the export is known to see this marker.
    assert.equal((await push(json({ streams: [good('after')] }), { 'content-type': 'application/json', apikey: key })).status, 204);
    assert.deepEqual((await linesWith(marker)).map((line) => line._line), [`${marker} after`]);
  });
});
