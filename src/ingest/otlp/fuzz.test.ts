import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import zlib from 'node:zlib';
import fc from 'fast-check';
import { type TestServer, startTestServer } from '../../testing/harness.js';
import { ExportLogsServiceRequest } from './proto.js';
import { OtlpInputError, linesOfRequest, parseJson } from './mapping.js';
import { linesOfProtobuf } from './protobuf-lines.js';

/**
 * The OTLP decoders with hostile input, seeded (LOGSTEAD_FUZZ_SEED replays a failure): the
 * decoders either map a request or throw OtlpInputError, never anything else; and over HTTP no
 * body, mutated protobuf or JSON, gzipped or not, gets a 5xx or takes the server down.
 */

const SEED = Number(process.env.LOGSTEAD_FUZZ_SEED ?? 20261127);

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

const anyValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.record({ stringValue: fc.string() }),
    fc.record({ intValue: fc.oneof(fc.integer(), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String), fc.string()) }),
    fc.record({ doubleValue: fc.oneof(fc.double(), fc.string()) }),
    fc.record({ boolValue: fc.oneof(fc.boolean(), fc.string()) }),
    fc.record({ bytesValue: fc.base64String() }),
    fc.record({ arrayValue: fc.record({ values: fc.array(tie('value'), { maxLength: 3 }) }) }),
    fc.record({ kvlistValue: fc.record({ values: fc.array(fc.record({ key: fc.string(), value: tie('value') }), { maxLength: 3 }) }) }),
    fc.anything(),
  ),
})).value;

const record = fc.record(
  {
    timeUnixNano: fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String), fc.integer(), fc.string()),
    observedTimeUnixNano: fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String), fc.constant(null)),
    severityNumber: fc.oneof(fc.integer({ min: -5, max: 40 }), fc.constantFrom('SEVERITY_NUMBER_INFO', 'SEVERITY_NUMBER_FATAL4', 'bogus')),
    severityText: fc.oneof(fc.string(), fc.integer()),
    body: anyValue,
    attributes: fc.array(fc.record({ key: fc.oneof(fc.string(), fc.constantFrom('a.b', 'a', '__proto__', '..', 'x.__proto__.y')), value: anyValue }), { maxLength: 4 }),
    traceId: fc.oneof(fc.uint8Array({ minLength: 16, maxLength: 16 }).map((bytes) => Buffer.from(bytes).toString('hex')), fc.string()),
    spanId: fc.oneof(fc.uint8Array({ minLength: 8, maxLength: 8 }).map((bytes) => Buffer.from(bytes).toString('hex')), fc.string()),
  },
  { requiredKeys: [] },
);

const request = fc.record({
  resourceLogs: fc.array(
    fc.record(
      {
        resource: fc.record({ attributes: fc.array(fc.record({ key: fc.constantFrom('service.name', 'host.name', 'hostname', 'k'), value: anyValue }), { maxLength: 3 }) }),
        scopeLogs: fc.array(fc.record({ logRecords: fc.array(record, { maxLength: 3 }) }, { requiredKeys: [] }), { maxLength: 2 }),
      },
      { requiredKeys: [] },
    ),
    { maxLength: 2 },
  ),
});

test('the JSON mapping maps or throws OtlpInputError, nothing else', () => {
  fc.assert(
    fc.property(request, (value) => {
      try {
        const lines = linesOfRequest(JSON.parse(JSON.stringify(value)));
        for (const line of lines) assert.equal(typeof line.host, 'string');
      } catch (error) {
        if (!(error instanceof OtlpInputError)) throw error;
      }
    }),
    { seed: SEED, numRuns: 1000 },
  );
});

test('the protobuf decoder maps or throws OtlpInputError for any bytes, and for mutated real requests', () => {
  const real = Buffer.from(
    ExportLogsServiceRequest.encode(
      ExportLogsServiceRequest.fromObject({
        resourceLogs: [{ resource: { attributes: [{ key: 'host.name', value: { stringValue: 'h' } }] }, scopeLogs: [{ logRecords: [{ body: { kvlistValue: { values: [{ key: 'k', value: { intValue: 5 } }] } }, traceId: Buffer.alloc(16, 1), spanId: Buffer.alloc(8, 2), timeUnixNano: 1 }] }] }],
      }),
    ).finish(),
  );
  const mutated = fc.array(fc.record({ at: fc.nat(real.length - 1), byte: fc.nat(255) }), { minLength: 1, maxLength: 6 }).map((changes) => {
    const copy = Buffer.from(real);
    for (const { at, byte } of changes) copy[at] = byte;
    return copy;
  });
  fc.assert(
    fc.property(fc.oneof(fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)), mutated), (bytes) => {
      try {
        linesOfProtobuf(bytes);
      } catch (error) {
        if (!(error instanceof OtlpInputError)) throw error;
      }
    }),
    { seed: SEED, numRuns: 3000 },
  );
  assert.throws(() => parseJson(Buffer.from('{')), OtlpInputError);
});

/** AnyValues as a protobuf sender writes them: one member each, of its own type, nested a little. */
const typedValue: fc.Arbitrary<object> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.record({ stringValue: fc.string() }),
    fc.record({ intValue: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String) }),
    fc.record({ doubleValue: fc.double() }),
    fc.record({ boolValue: fc.boolean() }),
    fc.record({ bytesValue: fc.uint8Array({ maxLength: 8 }) }),
    fc.record({ arrayValue: fc.record({ values: fc.array(tie('value'), { maxLength: 3 }) }) }),
    fc.record({ kvlistValue: fc.record({ values: fc.array(fc.record({ key: fc.string(), value: tie('value') }), { maxLength: 3 }) }) }),
    fc.constant({}),
  ),
})).value;
const typedAttributes = fc.array(fc.record({ key: fc.oneof(fc.string(), fc.constantFrom('service.name', 'host.name', 'hostname', 'a.b', 'a', '__proto__')), value: typedValue }, { requiredKeys: ['key'] }), { maxLength: 4 });
const typedRequest = fc.record({
  resourceLogs: fc.array(
    fc.record(
      {
        resource: fc.record({ attributes: typedAttributes }),
        scopeLogs: fc.array(
          fc.record({
            logRecords: fc.array(
              fc.record(
                {
                  timeUnixNano: fc.bigInt({ min: 0n, max: 2n ** 62n }).map(String),
                  observedTimeUnixNano: fc.bigInt({ min: 0n, max: 2n ** 62n }).map(String),
                  severityNumber: fc.integer({ min: -3, max: 30 }),
                  severityText: fc.oneof(fc.string(), fc.constantFrom('WARN', ' error ', '')),
                  body: typedValue,
                  attributes: typedAttributes,
                  traceId: fc.oneof(fc.uint8Array({ minLength: 16, maxLength: 16 }), fc.constant(new Uint8Array(16)), fc.uint8Array({ maxLength: 17 })),
                  spanId: fc.oneof(fc.uint8Array({ minLength: 8, maxLength: 8 }), fc.uint8Array({ maxLength: 9 })),
                  eventName: fc.string(),
                },
                { requiredKeys: [] },
              ),
              { maxLength: 3 },
            ),
          }),
          { maxLength: 2 },
        ),
      },
      { requiredKeys: [] },
    ),
    { maxLength: 3 },
  ),
});

test('the protobuf reader gives the same lines as protobufjs decoding and the JSON mapping, or refuses where they do', () => {
  fc.assert(
    fc.property(typedRequest, (value) => {
      const bytes = ExportLogsServiceRequest.encode(ExportLogsServiceRequest.fromObject(value)).finish();
      const outcome = (map: () => unknown) => {
        try {
          return { lines: map() };
        } catch (error) {
          if (!(error instanceof OtlpInputError)) throw error;
          return { refused: true };
        }
      };
      assert.deepEqual(outcome(() => linesOfProtobuf(bytes)), outcome(() => linesOfRequest(ExportLogsServiceRequest.decode(bytes))));
    }),
    { seed: SEED, numRuns: 1000 },
  );
});

test('over HTTP, hostile bodies never get a 5xx and the server stays up', async () => {
  const key = server.org.ingestionKey;
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        request.map((value) => ({ type: 'application/json', body: Buffer.from(JSON.stringify(value)) })),
        fc.uint8Array({ maxLength: 300 }).map((bytes) => ({ type: 'application/x-protobuf', body: Buffer.from(bytes) })),
        fc.string().map((text) => ({ type: 'application/json', body: Buffer.from(text) })),
      ),
      fc.boolean(),
      async ({ type, body }, gzip) => {
        const response = await fetch(`${server.url}/v1/logs`, {
          method: 'POST',
          headers: { 'content-type': type, apikey: key, ...(gzip ? { 'content-encoding': 'gzip' } : {}) },
          body: gzip ? zlib.gzipSync(body) : body,
        });
        await response.arrayBuffer();
        assert.ok(response.status < 500, `status ${response.status}`);
        assert.ok([200, 400].includes(response.status), `status ${response.status}`);
      },
    ),
    { seed: SEED, numRuns: 250 },
  );
  const health = await fetch(`${server.url}/healthz`);
  assert.equal(health.status, 200);
});
