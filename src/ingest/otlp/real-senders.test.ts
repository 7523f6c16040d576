import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
// The OpenTelemetry JS SDK and its three log exporters, unmodified: what they put on the wire is
// what instrumented services send.
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { Metadata } from '@grpc/grpc-js';
import { OTLPLogExporter as GrpcExporter } from '@opentelemetry/exporter-logs-otlp-grpc';
import { OTLPLogExporter as HttpJsonExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as HttpProtoExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { LoggerProvider, SimpleLogRecordProcessor, type LogRecordExporter } from '@opentelemetry/sdk-logs';
import { type TestServer, jsonLines, request, startTestServer } from '../../testing/harness.js';
import { freePort } from '../../testing/free-port.js';


let server: TestServer;
let grpcPort: number;
before(async () => {
  grpcPort = await freePort();
  server = await startTestServer({ LOGSTEAD_OTLP_GRPC_PORT: String(grpcPort) });
});
after(() => server.close());

async function exported(query: string): Promise<any[]> {
  const reply = await request(`${server.url}/v1/export?from=0&to=${Date.now() + 60_000}&prefer=head&${query}`, { headers: { servicekey: server.org.serviceKey } });
  assert.equal(reply.status, 200, reply.text);
  return jsonLines(reply.text);
}

const TRACE_ID = '5b8efff798038103d269b633813fc60c';
const SPAN_ID = 'eee19b7ec3c1b174';

/** Sends four records through `exporter` as a service on `host` would, and checks what was stored. */
async function sendsAndStores(kind: string, exporter: LogRecordExporter): Promise<void> {
  const host = `otel-${kind}`;
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({ 'service.name': `checkout-${kind}`, 'host.name': host, 'deployment.environment': 'prod' }),
    processors: [new SimpleLogRecordProcessor({ exporter })],
  });
  const logger = provider.getLogger('orders', '1.0.0');
  const at = Date.now() - 3_600_000; // an hour ago: in retention, not in the future
  const traced = trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1 });
  logger.emit({ body: `order placed ${kind}`, severityNumber: SeverityNumber.INFO, timestamp: at, context: traced, attributes: { count: 3, ratio: 0.5, ok: true, 'http.request.method': 'GET', list: ['a', 'b'] } });
  logger.emit({ body: { event: 'payment failed', code: 'E42' }, severityNumber: SeverityNumber.ERROR2, severityText: 'error', timestamp: at + 1 });
  logger.emit({ body: `slow provider ${kind}`, severityNumber: SeverityNumber.WARN, timestamp: at + 2 });
  logger.emit({ body: `no severity ${kind}`, timestamp: at + 3 });
  await provider.forceFlush();
  await provider.shutdown();

  const lines = await exported(`hosts=${host}`);
  assert.deepEqual(
    lines.map((line) => [line._line, line.level, line._app, line._host, line._ts]),
    [
      [`order placed ${kind}`, 'INFO', `checkout-${kind}`, host, at],
      ['{"event":"payment failed","code":"E42"}', 'ERROR', `checkout-${kind}`, host, at + 1],
      [`slow provider ${kind}`, 'WARN', `checkout-${kind}`, host, at + 2],
      [`no severity ${kind}`, '', `checkout-${kind}`, host, at + 3],
    ],
  );
  const [first, second] = lines;
  assert.equal(first.trace_id, TRACE_ID);
  assert.equal(first.span_id, SPAN_ID);
  assert.equal(second.event, 'payment failed', 'a map body is a JSON line, its fields searchable');
  assert.equal(second.trace_id, undefined);
  assert.deepEqual(first.meta, {
    service: { name: `checkout-${kind}` },
    host: { name: host },
    deployment: { environment: 'prod' },
    count: 3,
    ratio: 0.5,
    ok: true,
    http: { request: { method: 'GET' } },
    list: ['a', 'b'],
  });
  assert.equal(first._metaUnindexed, undefined, 'meta is indexed');

  const byTrace = await exported(`query=${encodeURIComponent(`trace_id:${TRACE_ID} host:${host}`)}`);
  assert.deepEqual(byTrace.map((line) => line._line), [`order placed ${kind}`]);
  const bySpan = await exported(`query=${encodeURIComponent(`span_id:${SPAN_ID} host:${host}`)}`);
  assert.deepEqual(bySpan.map((line) => line._line), [`order placed ${kind}`]);
  const byMeta = await exported(`query=${encodeURIComponent(`meta.http.request.method:GET meta.count:3 host:${host}`)}`);
  assert.deepEqual(byMeta.map((line) => line._line), [`order placed ${kind}`]);
}

test('@opentelemetry/exporter-logs-otlp-http (JSON) with the apikey header', async () => {
  await sendsAndStores('http-json', new HttpJsonExporter({ url: `${server.url}/v1/logs`, headers: { apikey: server.org.ingestionKey } }));
});

test('@opentelemetry/exporter-logs-otlp-proto (protobuf) with Authorization: Bearer, gzip', async () => {
  await sendsAndStores('http-proto', new HttpProtoExporter({ url: `${server.url}/v1/logs`, headers: { authorization: `Bearer ${server.org.ingestionKey}` }, compression: 'gzip' as never }));
});

test('@opentelemetry/exporter-logs-otlp-grpc with the apikey in metadata', async () => {
  const metadata = new Metadata();
  metadata.set('apikey', server.org.ingestionKey);
  await sendsAndStores('grpc', new GrpcExporter({ url: `http://127.0.0.1:${grpcPort}`, metadata }));
});

test('@opentelemetry/exporter-logs-otlp-grpc with Basic auth in metadata, gzip', async () => {
  const metadata = new Metadata();
  metadata.set('authorization', `Basic ${Buffer.from(`${server.org.ingestionKey}:`).toString('base64')}`);
  await sendsAndStores('grpc-basic', new GrpcExporter({ url: `http://127.0.0.1:${grpcPort}`, metadata, compression: 'gzip' as never }));
});

test('a wrong key: the exporter reports the failure and nothing is stored', async () => {
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({ 'service.name': 'intruder', 'host.name': 'otel-wrong-key' }),
    processors: [new SimpleLogRecordProcessor({ exporter: new HttpProtoExporter({ url: `${server.url}/v1/logs`, headers: { apikey: 'not-a-key' } }) })],
  });
  provider.getLogger('x').emit({ body: 'should not be stored' });
  await provider.forceFlush().catch(() => {});
  await provider.shutdown().catch(() => {});
  assert.deepEqual(await exported('hosts=otel-wrong-key'), []);
});
