import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { ElasticError } from '../../http/errors.js';
import { type TestServer, request, startTestServer } from '../../testing/harness.js';
import { parseBulk } from './bulk.js';
import { documentToLine } from './map.js';

/**
 * Hostile bulk bodies, seeded (LOGSTEAD_FUZZ_SEED replays a failure): the parser either reads a
 * body or refuses it with an ElasticError (never anything else), and a real server answers any
 * of them without a 5xx, in Elasticsearch's shape, and stays up.
 */

const SEED = Number(process.env.LOGSTEAD_FUZZ_SEED ?? 20261124);

const actionLine = fc
  .tuple(fc.constantFrom('index', 'create', 'delete', 'update', 'upsert', '__proto__', ''), fc.option(fc.string(), { nil: undefined }), fc.option(fc.oneof(fc.string(), fc.integer()), { nil: undefined }))
  .map(([name, index, id]) => JSON.stringify({ [name]: { ...(index === undefined ? {} : { _index: index }), ...(id === undefined ? {} : { _id: id }) } }));
const documentLine = fc
  .oneof(
    fc.jsonValue({ maxDepth: 4 }),
    fc.record({ message: fc.oneof(fc.string(), fc.jsonValue()), host: fc.oneof(fc.string(), fc.record({ name: fc.string() })), '@timestamp': fc.oneof(fc.string(), fc.integer(), fc.double()), 'log.level': fc.string() }, { requiredKeys: [] }),
  )
  .map((value) => JSON.stringify(value) ?? 'null');
const garbage = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('{', '}', '{"index":', '\r', '\u0000', '\ud800', '{"index":{}}{"message":1}'));
const body = fc.array(fc.oneof({ weight: 3, arbitrary: actionLine }, { weight: 3, arbitrary: documentLine }, { weight: 1, arbitrary: garbage }), { maxLength: 12 }).chain((lines) =>
  fc.constantFrom('\n', '\r\n').map((end) => lines.join(end) + end),
);

test('the parser reads a body or refuses it with an Elasticsearch error, and every document maps to a line', () => {
  fc.assert(
    fc.property(body, fc.option(fc.string(), { nil: undefined }), (text, pathIndex) => {
      let items;
      try {
        items = parseBulk(Buffer.from(text), pathIndex);
      } catch (error) {
        assert.ok(error instanceof ElasticError, `not an ElasticError: ${error}`);
        assert.ok(error.statusCode === 400);
        return;
      }
      for (const item of items) {
        if ('doc' in item) {
          const line = documentToLine(item.doc, item.index);
          assert.ok(line.line !== undefined && line.line !== null);
          assert.equal((line.meta as Record<string, unknown>)._index, item.index);
        } else {
          assert.equal(typeof item.error.reason, 'string');
        }
      }
    }),
    { seed: SEED, numRuns: 3000 },
  );
});

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

test('a real server answers any bulk body without a 5xx, in Elasticsearch\'s shape', async () => {
  await fc.assert(
    fc.asyncProperty(body, fc.constantFrom('/_bulk', '/fuzz/_bulk', '/_x/_bulk'), async (text, path) => {
      const reply = await request(`${server.url}${path}`, { method: 'POST', headers: { apikey: server.org.ingestionKey, 'content-type': 'application/x-ndjson' }, body: text });
      assert.ok(reply.status < 500, `${reply.status}: ${reply.text}`);
      assert.equal(reply.headers.get('x-elastic-product'), 'Elasticsearch');
      if (reply.status === 200) assert.equal(Array.isArray(reply.json.items), true);
      else assert.equal(reply.json.status, reply.status, reply.text);
    }),
    { seed: SEED, numRuns: 300 },
  );
  assert.equal((await request(`${server.url}/healthz`)).status, 200);
});
