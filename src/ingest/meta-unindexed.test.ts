/**
 * Lines whose meta is stored unindexed say why in their record (`_metaUnindexed`), and the ingest
 * counters count them by reason: a type other than the field's fixed one, the daily cap on new
 * fields, meta over the size limit, meta that is not an object.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestServer, jsonLines, request, startTestServer } from '../testing/harness.js';

let server: TestServer;
before(async () => {
  server = await startTestServer({ LOGSTEAD_MAX_META_FIELDS_PER_DAY: '3' });
});
after(() => server.close());

async function ingest(lines: Array<Record<string, unknown>>) {
  const reply = await request(`${server.url}/logs/ingest?hostname=meta-host`, {
    method: 'POST',
    headers: { apikey: server.org.ingestionKey, 'content-type': 'application/json' },
    body: JSON.stringify({ lines }),
  });
  assert.equal(reply.status, 200, reply.text);
}

async function unindexedCount(reason: string): Promise<number> {
  const text = (await request(`${server.url}/metrics`)).text;
  const match = new RegExp(`^logstead_ingest_meta_unindexed_lines_total\\{reason="${reason}"\\} (\\d+)`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
}

test('each unindexed line says why, and the counters count it by reason', async () => {
  const now = Date.now();
  await ingest([
    { line: 'meta ok', meta: { user: 42 }, timestamp: now },
    { line: 'meta conflict', meta: { user: 'alice' }, timestamp: now + 1 },
    { line: 'meta big', meta: { blob: 'x'.repeat(40 * 1024) }, timestamp: now + 2 },
    { line: 'meta scalar', meta: '"just text"', timestamp: now + 3 },
    { line: 'meta fields', meta: { a: 1, b: 2 }, timestamp: now + 4 },
    { line: 'meta capped', meta: { c: 1 }, timestamp: now + 5 },
    { line: 'no meta', timestamp: now + 6 },
  ]);
  const records = jsonLines((await request(`${server.url}/v1/export?from=${now - 1000}&to=${now + 10_000}&prefer=head&hosts=meta-host`, { headers: { servicekey: server.org.serviceKey } })).text);
  const reasons = Object.fromEntries(records.map((record) => [record._line, record._metaUnindexed ?? null]));
  assert.deepEqual(reasons, {
    'meta ok': null,
    'meta conflict': 'type-conflict',
    'meta big': 'too-large',
    'meta scalar': 'not-an-object',
    'meta fields': null,
    'meta capped': 'daily-cap',
    'no meta': null,
  });
  assert.deepEqual(
    await Promise.all(['type-conflict', 'too-large', 'not-an-object', 'daily-cap'].map(unindexedCount)),
    [1, 1, 1, 1],
  );
});
