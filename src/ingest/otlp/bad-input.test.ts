import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import zlib from 'node:zlib';
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { type TestServer, basic, jsonLines, request, startTestServer } from '../../testing/harness.js';
import { EXPORT_METHOD, ExportLogsServiceRequest, ExportLogsServiceResponse, RpcStatus } from './proto.js';
import { linesOfProtobuf } from './protobuf-lines.js';
import { freePort } from '../../testing/free-port.js';

/**
 * OTLP's answers to bad input and keys, over raw HTTP and a raw gRPC client: each refusal is the
 * protocol's own (a google.rpc.Status in the request's encoding; a gRPC status code), with the
 * HTTP statuses senders act on, and nothing of a refused request is stored.
 */


let server: TestServer;
let grpcPort: number;
let client: grpc.Client;
before(async () => {
  grpcPort = await freePort();
  server = await startTestServer({ LOGSTEAD_OTLP_GRPC_PORT: String(grpcPort) });
  client = new grpc.Client(`127.0.0.1:${grpcPort}`, grpc.credentials.createInsecure());
});
after(async () => {
  client.close();
  await server.close();
});

const body = (host: string, lines: unknown[]) => ({
  resourceLogs: [{ resource: { attributes: [{ key: 'host.name', value: { stringValue: host } }, { key: 'service.name', value: { stringValue: 'edge' } }] }, scopeLogs: [{ logRecords: lines }] }],
});
const protobufOf = (value: object) => Buffer.from(ExportLogsServiceRequest.encode(ExportLogsServiceRequest.fromObject(value)).finish());

async function post(headers: Record<string, string>, payload: Buffer | string) {
  const response = await fetch(`${server.url}/v1/logs`, { method: 'POST', headers, body: payload });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

async function stored(host: string): Promise<any[]> {
  const reply = await request(`${server.url}/v1/export?from=0&to=${Date.now() + 60_000}&prefer=head&hosts=${host}`, { headers: { servicekey: server.org.serviceKey } });
  return jsonLines(reply.text);
}

/** A minute ago, in ms and as OTLP's nanoseconds (an older time could be past retention, and dropped). */
const RECENT_MS = Date.now() - 60_000;
const RECENT_NANOS = `${RECENT_MS}000000`;

const JSON_TYPE = { 'content-type': 'application/json' };
const PROTO_TYPE = { 'content-type': 'application/x-protobuf' };

test('JSON: every form of the key is taken, and the answer is an empty ExportLogsServiceResponse', async () => {
  const key = server.org.ingestionKey;
  const forms: Array<[string, Record<string, string>]> = [
    ['apikey', { apikey: key }],
    ['basic user', { authorization: basic(key) }],
    ['basic password', { authorization: basic('otel', key) }],
    ['basic both', { authorization: basic(key, key) }],
    ['bearer', { authorization: `Bearer ${key}` }],
  ];
  for (const [name, headers] of forms) {
    const reply = await post({ ...JSON_TYPE, ...headers }, JSON.stringify(body('edge-keys', [{ body: { stringValue: name }, timeUnixNano: RECENT_NANOS, traceId: '0102030405060708090a0b0c0d0e0f10' }])));
    assert.equal(reply.status, 200, `${name}: ${reply.bytes}`);
    assert.match(reply.headers.get('content-type') ?? '', /application\/json/);
    assert.deepEqual(JSON.parse(reply.bytes.toString()), {});
  }
  assert.deepEqual((await stored('edge-keys')).map((line) => line._line).sort(), forms.map(([name]) => name).sort());
});

test('protobuf: int64 strings, snake_case JSON and severity names are read as OTLP/JSON senders write them', async () => {
  const reply = await post(
    { ...JSON_TYPE, apikey: server.org.ingestionKey },
    JSON.stringify({
      resource_logs: [
        {
          resource: { attributes: [{ key: 'hostname', value: { stringValue: 'edge-snake' } }] },
          scope_logs: [{ log_records: [{ body: { int_value: '42' }, severity_number: 'SEVERITY_NUMBER_WARN2', observed_time_unix_nano: Number(RECENT_NANOS), attributes: [{ key: 'big', value: { intValue: '9007199254740993' } }, { key: 'd', value: { doubleValue: 'NaN' } }] }] }],
        },
      ],
    }),
  );
  assert.equal(reply.status, 200, reply.bytes.toString());
  const [line] = await stored('edge-snake');
  assert.equal(line._line, '42');
  assert.equal(line.level, 'WARN');
  assert.equal(line._ts, RECENT_MS);
  assert.equal(line._app, '');
  assert.deepEqual(line.meta, { hostname: 'edge-snake', big: '9007199254740993', d: 'NaN' });
});

test('a wrong, missing or service key: 401/403 with a Status in the request encoding, nothing stored', async () => {
  const payload = protobufOf(body('edge-wrong-key', [{ body: { stringValue: 'x' } }]));
  for (const [headers, status] of [
    [{}, 401],
    [{ apikey: 'not-a-key-at-all' }, 403],
    [{ apikey: server.org.serviceKey }, 401],
    [{ authorization: `Bearer ${server.org.ingestionKey}`, apikey: 'another-key' }, 401],
  ] as const) {
    const reply = await post({ ...PROTO_TYPE, ...headers }, payload);
    assert.equal(reply.status, status);
    assert.equal(reply.headers.get('content-type'), 'application/x-protobuf');
    const decoded = RpcStatus.toObject(RpcStatus.decode(reply.bytes)) as { code: number; message: string };
    assert.equal(decoded.code, status === 401 ? 16 : 7);
    assert.ok(decoded.message.length > 0);
  }
  const json = await post({ ...JSON_TYPE, apikey: 'not-a-key-at-all' }, '{}');
  assert.equal(json.status, 403);
  assert.deepEqual(Object.keys(JSON.parse(json.bytes.toString())).sort(), ['code', 'message']);
  assert.deepEqual(await stored('edge-wrong-key'), []);
});

test('bad protobuf, bad JSON, a bad record among good ones: 400 and nothing of the request stored', async () => {
  const key = { apikey: server.org.ingestionKey };
  const good = { body: { stringValue: 'good' } };
  const deepJson = JSON.stringify(body('edge-bad', [good, { body: JSON.parse('{"kvlistValue":{"values":[{"key":"a","value":'.repeat(120) + '{"stringValue":"x"}' + '}]}}'.repeat(120)) }]));
  // The same nesting in protobuf, written by hand: protobufjs's own encoder refuses such depth.
  const field = (number: number, bytes: Buffer) => Buffer.concat([Buffer.from(protobuf.Writer.create().uint32((number << 3) | 2).uint32(bytes.length).finish()), bytes]);
  let value = field(1, Buffer.from('x'));
  for (let level = 0; level < 120; level++) value = field(6, field(1, Buffer.concat([field(1, Buffer.from('a')), field(2, value)])));
  const deepProtobuf = field(1, field(2, field(2, field(5, value))));
  // A trace id of 5 bytes, which protobuf itself does not refuse.
  const shortTraceId = Buffer.from(ExportLogsServiceRequest.encode(ExportLogsServiceRequest.fromObject(body('edge-bad', [good, { body: { stringValue: 'x' }, traceId: Buffer.alloc(5, 1) }]))).finish());
  // A record whose length says more than its resourceLogs holds: the field runs past its message.
  const overrun = protobufOf(body('edge-bad', [good]));
  overrun[overrun.indexOf(0x12, overrun.indexOf(0x12) + 1) + 1] += 3;
  const cases: Array<[string, Record<string, string>, Buffer | string, RegExp]> = [
    ['truncated protobuf', PROTO_TYPE, protobufOf(body('edge-bad', [good, good])).subarray(0, 20), /not an OTLP protobuf|past the end/],
    ['random bytes', PROTO_TYPE, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2, 3]), /past the end|not an OTLP protobuf/],
    ['a field past its message', PROTO_TYPE, overrun, /past the end/],
    ['a trace id of 5 bytes', PROTO_TYPE, shortTraceId, /traceId is not 16 bytes/],
    ['protobuf nested too deep', PROTO_TYPE, deepProtobuf, /nested deeper than 100 levels/],
    ['not JSON', JSON_TYPE, '{"resourceLogs": [', /not JSON/],
    ['resourceLogs not an array', JSON_TYPE, '{"resourceLogs": 5}', /resourceLogs is not an array/],
    ['a bad trace id after a good record', JSON_TYPE, JSON.stringify(body('edge-bad', [good, { body: { stringValue: 'x' }, traceId: 'zz' }])), /traceId is not 32 hex digits/],
    ['a bad time', JSON_TYPE, JSON.stringify(body('edge-bad', [good, { body: { stringValue: 'x' }, timeUnixNano: 'yesterday' }])), /timeUnixNano is not a time/],
    ['a body nested too deep', JSON_TYPE, deepJson, /nested deeper than 100 levels/],
  ];
  for (const [name, headers, payload, reason] of cases) {
    const reply = await post({ ...headers, ...key }, payload);
    assert.equal(reply.status, 400, `${name}: ${reply.bytes}`);
    const status = (headers === PROTO_TYPE ? RpcStatus.toObject(RpcStatus.decode(reply.bytes)) : JSON.parse(reply.bytes.toString())) as { code: number; message: string };
    assert.equal(status.code, 3, name);
    assert.match(status.message, /^Not an OTLP logs request: /, name);
    assert.match(status.message, reason, name);
  }
  assert.deepEqual(await stored('edge-bad'), []);
});

test('an unknown content type is 415; a gzip bomb is 413 and stops inflating; a bad encoding is 400', async () => {
  const key = { apikey: server.org.ingestionKey };
  const text = await post({ 'content-type': 'text/plain', ...key }, 'hello');
  assert.equal(text.status, 415);
  assert.equal(JSON.parse(text.bytes.toString()).code, 3);

  const bomb = zlib.gzipSync(Buffer.alloc(64 * 1024 * 1024));
  const started = Date.now();
  const bombed = await post({ ...PROTO_TYPE, 'content-encoding': 'gzip', ...key }, bomb);
  assert.equal(bombed.status, 413);
  assert.ok(Date.now() - started < 5000, 'refused without inflating it all');

  const corrupt = await post({ ...PROTO_TYPE, 'content-encoding': 'gzip', ...key }, Buffer.from('not gzip at all'));
  assert.equal(corrupt.status, 400);
  const brotli = await post({ ...PROTO_TYPE, 'content-encoding': 'br', ...key }, Buffer.from('x'));
  assert.equal(brotli.status, 400);

  const gzipped = await post({ ...PROTO_TYPE, 'content-encoding': 'gzip', ...key }, zlib.gzipSync(protobufOf(body('edge-gzip', [{ body: { stringValue: 'zipped' } }]))));
  assert.equal(gzipped.status, 200);
  assert.deepEqual(ExportLogsServiceResponse.toObject(ExportLogsServiceResponse.decode(gzipped.bytes)), {});
  assert.deepEqual((await stored('edge-gzip')).map((line) => line._line), ['zipped']);
});

function exportCall(payload: Buffer, metadata: grpc.Metadata): Promise<{ error: grpc.ServiceError | null; response?: Buffer }> {
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      EXPORT_METHOD,
      (value: Buffer) => value,
      (bytes: Buffer) => bytes,
      payload,
      metadata,
      (error, response) => resolve({ error, response }),
    );
  });
}

const metadataOf = (entries: Record<string, string>) => {
  const metadata = new grpc.Metadata();
  for (const [name, value] of Object.entries(entries)) metadata.set(name, value);
  return metadata;
};

test('gRPC: a raw client gets OK, UNAUTHENTICATED, PERMISSION_DENIED and INVALID_ARGUMENT, and only good requests are stored', async () => {
  const payload = protobufOf(body('edge-grpc', [{ body: { stringValue: 'over grpc' }, severityText: 'notice' }]));
  const ok = await exportCall(payload, metadataOf({ authorization: `Bearer ${server.org.ingestionKey}` }));
  assert.equal(ok.error, null);
  assert.deepEqual(ExportLogsServiceResponse.toObject(ExportLogsServiceResponse.decode(ok.response!)), {});

  const missing = await exportCall(payload, new grpc.Metadata());
  assert.equal(missing.error?.code, grpc.status.UNAUTHENTICATED);
  const wrong = await exportCall(payload, metadataOf({ apikey: 'not-a-key-at-all' }));
  assert.equal(wrong.error?.code, grpc.status.PERMISSION_DENIED);
  const garbage = await exportCall(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 1]), metadataOf({ apikey: server.org.ingestionKey }));
  assert.equal(garbage.error?.code, grpc.status.INVALID_ARGUMENT);
  const tooBig = await exportCall(Buffer.alloc(11 * 1024 * 1024), metadataOf({ apikey: server.org.ingestionKey }));
  assert.equal(tooBig.error?.code, grpc.status.RESOURCE_EXHAUSTED);

  const lines = await stored('edge-grpc');
  assert.deepEqual(lines.map((line) => [line._line, line.level, line._app]), [['over grpc', 'NOTICE', 'edge']]);
});

test('protobuf: int64 values are numbers while exact, negative ones too, and text beyond; empty and false values are kept', () => {
  const values = ['-1', '-4294967296', '4294967295', '9007199254740991', '-9007199254740991', '9007199254740993', '-9223372036854775808'];
  const encoded = ExportLogsServiceRequest.encode(
    ExportLogsServiceRequest.fromObject({
      resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'x' }, attributes: [...values.map((value, index) => ({ key: `i${index}`, value: { intValue: value } })), { key: 'empty', value: { stringValue: '' } }, { key: 'no', value: { boolValue: false } }, { key: 'zero', value: { intValue: 0 } }] }] }] }],
    }),
  ).finish();
  const [line] = linesOfProtobuf(encoded);
  assert.deepEqual(line.meta, { i0: -1, i1: -4294967296, i2: 4294967295, i3: 9007199254740991, i4: -9007199254740991, i5: '9007199254740993', i6: '-9223372036854775808', empty: '', no: false, zero: 0 });
});
