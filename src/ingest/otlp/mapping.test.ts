import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestServer, exportRecords, startTestServer } from '../../testing/harness.js';
import { ExportLogsServiceRequest } from './proto.js';

/**
 * The records of one resource share its meta (one object, read once by the intake) unless they
 * carry attributes of their own: what each line stores and what its meta fields find must be the
 * same as if every record had its own copy.
 */

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(async () => {
  await server.close();
});

const RECENT_NANOS = `${Date.now() - 60_000}000000`;

const resource = (service: string, extra: Array<{ key: string; value: object }> = []) => ({
  attributes: [{ key: 'service.name', value: { stringValue: service } }, { key: 'host.name', value: { stringValue: 'shared-meta-host' } }, ...extra],
});

async function send(value: object): Promise<void> {
  const response = await fetch(`${server.url}/v1/logs`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-protobuf', apikey: server.org.ingestionKey },
    body: Buffer.from(ExportLogsServiceRequest.encode(ExportLogsServiceRequest.fromObject(value)).finish()),
  });
  assert.equal(response.status, 200, await response.text());
}

test('records without attributes keep only their resource meta; a record with attributes between them adds its own to its line alone', async () => {
  const record = (line: string, attributes: Array<{ key: string; value: object }> = []) => ({ body: { stringValue: line }, timeUnixNano: RECENT_NANOS, attributes });
  await send({
    resourceLogs: [
      {
        resource: resource('shared-a', [{ key: 'deployment.zone', value: { stringValue: 'z1' } }]),
        scopeLogs: [
          {
            logRecords: [
              record('first plain'),
              record('with attributes', [
                { key: 'http.status', value: { intValue: 503 } },
                { key: 'deployment.tier', value: { stringValue: 'gold' } },
              ]),
              record('second plain'),
            ],
          },
        ],
      },
      { resource: resource('shared-b'), scopeLogs: [{ logRecords: [record('other resource')] }] },
    ],
  });
  const lines = await exportRecords(server, 'host:shared-meta-host', 0);
  const byLine = new Map(lines.map((line) => [line._line, line]));
  assert.equal(byLine.size, 4);
  const resourceA = { service: { name: 'shared-a' }, host: { name: 'shared-meta-host' }, deployment: { zone: 'z1' } };
  assert.deepEqual(byLine.get('first plain')!.meta, resourceA);
  assert.deepEqual(byLine.get('second plain')!.meta, resourceA, 'the record with attributes between did not change the shared meta');
  assert.deepEqual(byLine.get('with attributes')!.meta, { ...resourceA, http: { status: 503 }, deployment: { zone: 'z1', tier: 'gold' } });
  assert.deepEqual(byLine.get('other resource')!.meta, { service: { name: 'shared-b' }, host: { name: 'shared-meta-host' } });

  // Every line's meta is indexed as fields, the shared ones too.
  for (const line of lines) assert.equal(line._metaUnindexed, undefined, `${line._line}: meta is indexed`);
  assert.deepEqual((await exportRecords(server, 'meta.deployment.zone:z1', 0)).map((line) => line._line).sort(), ['first plain', 'second plain', 'with attributes']);
  assert.deepEqual((await exportRecords(server, 'meta.http.status:503', 0)).map((line) => line._line), ['with attributes']);
  assert.deepEqual((await exportRecords(server, 'meta.service.name:shared-b', 0)).map((line) => line._line), ['other resource']);
});
