import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import zlib from 'node:zlib';
import { Client } from '@elastic/elasticsearch';
import { type TestServer, basic, eventually, jsonLines, request, startTestServer } from '../../testing/harness.js';

/**
 * The Elasticsearch bulk API with the real sender: the official @elastic/elasticsearch client, its
 * `bulk` call and its `helpers.bulk`, against a real Logstead; the lines read back with GET
 * /v1/export. Then raw HTTP for what a client would not send: unknown actions, broken NDJSON, wrong
 * keys, gzip and a gzip bomb, and the browser that must still get the viewer at GET /.
 */

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

const exported = async (host: string, expected: number): Promise<any[]> =>
  eventually(async () => {
    const reply = await request(`${server.url}/v1/export?from=0&to=${Date.now() + 60_000}&hosts=${host}`, { headers: { servicekey: server.org.serviceKey } });
    assert.equal(reply.status, 200, reply.text);
    const lines = jsonLines(reply.text);
    return lines.length >= expected ? lines : undefined;
  }, 10_000, `${expected} lines of ${host}`);

const client = (auth: ConstructorParameters<typeof Client>[0]['auth']) => new Client({ node: server.url, auth });

describe('the official client', () => {
  test('info and ping: GET / and HEAD / answer as Elasticsearch', async () => {
    const es = client({ apiKey: server.org.ingestionKey });
    const info = await es.info();
    assert.equal(info.version.number, '8.13.0');
    assert.equal(info.tagline, 'You Know, for Search');
    assert.equal(await es.ping(), true);
    await es.close();
  });

  test('bulk: index and create are stored with host, app, level, time and meta; delete is refused per item', async () => {
    const es = client({ username: server.org.ingestionKey, password: '' });
    const time = new Date(Date.now() - 60_000).toISOString();
    const result = await es.bulk({
      operations: [
        { index: { _index: 'web-logs' } },
        { message: 'GET /cart 200', host: { name: 'es-client-host', ip: '10.0.0.1' }, service: { name: 'cart' }, log: { level: 'warn' }, '@timestamp': time, http: { status: 200 }, ok: true, tags: ['a', 'b'] },
        { create: { _index: 'web-logs', _id: 'my-id' } },
        { log: 'a docker line', host: 'es-client-host', app: 'docker-app', level: 'error', '@timestamp': time, 'user.id': 42 },
        { delete: { _index: 'web-logs', _id: 'x' } },
      ],
    });
    assert.equal(result.errors, true);
    assert.deepEqual(result.items.map((item) => Object.entries(item).map(([action, answer]) => [action, answer.status])[0]), [['index', 201], ['create', 201], ['delete', 400]]);
    assert.equal(result.items[1].create!._id, 'my-id');
    assert.equal(result.items[2].delete!.error!.type, 'illegal_argument_exception');
    const lines = await exported('es-client-host', 2);
    const byLine = Object.fromEntries(lines.map((line) => [line._line, line]));
    const first = byLine['GET /cart 200'];
    assert.equal(first._app, 'cart');
    assert.equal(first.level, 'WARN');
    assert.equal(first._ts, Date.parse(time));
    assert.deepEqual(first.meta, { host: { ip: '10.0.0.1' }, http: { status: 200 }, ok: true, tags: ['a', 'b'], _index: 'web-logs' });
    assert.deepEqual(first.tags, []);
    const second = byLine['a docker line'];
    assert.equal(second._app, 'docker-app');
    assert.equal(second.level, 'ERROR');
    assert.deepEqual(second.meta, { 'user.id': 42, _index: 'web-logs' });
    await es.close();
  });

  test('helpers.bulk, with ApiKey base64(name:key) and the index in the path: every document stored once', async () => {
    const es = client({ apiKey: { id: 'shipper', api_key: server.org.ingestionKey } });
    const documents = Array.from({ length: 250 }, (_, index) => ({ message: `helper line ${index}`, 'host.name': 'es-helper-host', 'service.name': 'helper', '@timestamp': new Date().toISOString(), seq: index }));
    const stats = await es.helpers.bulk({ datasource: documents, onDocument: () => ({ create: { _index: 'helper-index' } }), flushBytes: 8000 });
    assert.equal(stats.failed, 0);
    assert.equal(stats.successful, 250);
    const lines = await exported('es-helper-host', 250);
    assert.equal(lines.length, 250);
    assert.deepEqual(new Set(lines.map((line) => line.meta.seq)).size, 250);
    assert.ok(lines.every((line) => line._app === 'helper' && line.meta._index === 'helper-index'));
    await es.close();
  });

  test('a wrong key: the client sees a 401 ResponseError in Elasticsearch\'s shape', async () => {
    const es = client({ apiKey: '0123456789abcdef0123456789abcdef' });
    await assert.rejects(es.bulk({ operations: [{ index: { _index: 'x' } }, { message: 'never' }] }), (error: any) => error.meta.statusCode === 401 && error.body.error.type === 'security_exception');
    await es.close();
  });
});

const bulk = (body: string | Buffer, headers: Record<string, string> = {}, path = '/_bulk') =>
  request(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson', apikey: server.org.ingestionKey, ...headers }, body });

const ndjson = (...values: unknown[]) => `${values.map((value) => JSON.stringify(value)).join('\n')}\n`;

describe('raw HTTP', () => {
  test('every form of the key is taken: Basic as user, password or both, Bearer, ApiKey, the apikey header', async () => {
    const key = server.org.ingestionKey;
    const forms: Record<string, string>[] = [
      { authorization: basic(key) },
      { authorization: basic('elastic', key) },
      { authorization: basic(key, key) },
      { authorization: `Bearer ${key}` },
      { authorization: `ApiKey ${key}` },
      { authorization: `ApiKey ${Buffer.from(`name:${key}`).toString('base64')}` },
    ];
    for (const [at, headers] of forms.entries()) {
      const reply = await request(`${server.url}/_bulk`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson', ...headers }, body: ndjson({ index: { _index: 'k' } }, { message: `key form ${at}`, host: 'es-key-forms' }) });
      assert.equal(reply.status, 200, `${JSON.stringify(headers)}: ${reply.text}`);
      assert.equal(reply.headers.get('x-elastic-product'), 'Elasticsearch');
    }
    assert.equal((await exported('es-key-forms', forms.length)).length, forms.length);
  });

  test('no key, a wrong key, a service key: 401 in Elasticsearch\'s shape with WWW-Authenticate, nothing stored', async () => {
    for (const headers of [{ apikey: '' }, { apikey: 'ffffffffffffffffffffffffffffffff' }, { apikey: server.org.serviceKey }]) {
      const reply = await bulk(ndjson({ index: { _index: 'k' } }, { message: 'refused', host: 'es-refused' }), headers);
      assert.equal(reply.status, 401);
      assert.equal(reply.json.status, 401);
      assert.equal(reply.json.error.type, 'security_exception');
      assert.equal(reply.json.error.root_cause[0].type, 'security_exception');
      assert.match(reply.headers.get('www-authenticate') ?? '', /Basic/);
      assert.equal(reply.headers.get('x-elastic-product'), 'Elasticsearch');
    }
  });

  test('an unknown action is answered per item and the others are stored; /{index}/_bulk names the index', async () => {
    const vectorTime = new Date(Date.now() - 120_000).toISOString();
    const reply = await bulk(ndjson({ upsert: { _id: '1' } }, { message: 'not stored' }, { index: {} }, { message: 'stored beside it', host: 'es-unknown-action', timestamp: vectorTime }, { update: { _id: '2' } }, { doc: { a: 1 } }), {}, '/path-index/_bulk');
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.errors, true);
    assert.deepEqual(reply.json.items.map((item: object) => Object.keys(item)[0]), ['upsert', 'index', 'update']);
    assert.deepEqual(reply.json.items.map((item: any) => (Object.values(item)[0] as any).status), [400, 201, 400]);
    const lines = await exported('es-unknown-action', 1);
    assert.deepEqual(lines.map((line) => [line._line, line.meta._index]), [['stored beside it', 'path-index']]);
    // Vector's bulk mode sends `timestamp` rather than `@timestamp`.
    assert.equal(lines[0]._ts, Date.parse(vectorTime));
  });

  test('bad NDJSON, an action line that is not one, a truncated body or gzip: 400, and nothing of the request stored', async () => {
    const good = ndjson({ index: { _index: 'k' } }, { message: 'beside a bad one', host: 'es-bad-input' });
    const gzipped = zlib.gzipSync(good + good);
    for (const [name, body, headers] of [
      ['bad JSON', `${good}{"index":{}}\n{"message": "broken\n`, {}],
      ['not an action', `${good}{"message":"no action"}\n`, {}],
      ['a document missing', `${good}{"index":{}}\n`, {}],
      ['no index anywhere', ndjson({ index: {} }, { message: 'x' }), {}],
      ['a truncated gzip body', gzipped.subarray(0, gzipped.length - 10), { 'content-encoding': 'gzip' }],
      ['an empty body', '', {}],
    ] as const) {
      const reply = await bulk(body as string | Buffer, headers as Record<string, string>);
      assert.equal(reply.status, 400, `${name}: ${reply.text}`);
      assert.equal(typeof reply.json.error.type, 'string', name);
      assert.equal(reply.json.status, 400, name);
    }
    // A good request after them, so that the export has seen everything before it.
    await bulk(ndjson({ index: { _index: 'k' } }, { message: 'the marker', host: 'es-bad-input-marker' }));
    await exported('es-bad-input-marker', 1);
    const reply = await request(`${server.url}/v1/export?from=0&to=${Date.now() + 60_000}&hosts=es-bad-input`, { headers: { servicekey: server.org.serviceKey } });
    assert.equal(reply.text, '');
  });

  test('gzip is read; a gzip bomb is refused with 413 in Elasticsearch\'s shape and nothing stored', async () => {
    const body = ndjson({ index: { _index: 'k' } }, { message: 'gzipped line', host: 'es-gzip' });
    const ok = await bulk(zlib.gzipSync(body), { 'content-encoding': 'gzip' });
    assert.equal(ok.status, 200, ok.text);
    await exported('es-gzip', 1);
    // 64 MB of one document repeated, far past the 10 MB limit once inflated.
    const line = ndjson({ index: { _index: 'k' } }, { message: 'bomb'.repeat(1000), host: 'es-bomb' });
    const bomb = zlib.gzipSync(Buffer.from(line.repeat(Math.ceil((64 * 1024 * 1024) / line.length))));
    const reply = await bulk(bomb, { 'content-encoding': 'gzip' });
    assert.equal(reply.status, 413, reply.text);
    assert.equal(reply.json.error.type, 'content_too_long_exception');
    const none = await request(`${server.url}/v1/export?from=0&to=${Date.now() + 60_000}&hosts=es-bomb`, { headers: { servicekey: server.org.serviceKey } });
    assert.equal(none.text, '');
  });

  test('setup calls shippers make first are accepted', async () => {
    const key = { authorization: basic(server.org.ingestionKey) };
    const calls: Array<[string, string, number]> = [
      ['GET', '/_license', 200],
      ['GET', '/_xpack', 200],
      ['GET', '/_cluster/health', 200],
      ['GET', '/_nodes/_all/http', 200],
      ['GET', '/_index_template/logs', 404],
      ['PUT', '/_index_template/logs', 200],
      ['PUT', '/_template/logs', 200],
      ['PUT', '/_ilm/policy/logs', 200],
      ['PUT', '/_ingest/pipeline/logs', 200],
      ['HEAD', '/some-index', 200],
      ['PUT', '/some-index', 200],
    ];
    for (const [method, path, status] of calls) {
      const reply = await request(`${server.url}${path}`, { method, headers: { ...key, 'content-type': 'application/json' }, body: method === 'PUT' ? '{"index_patterns":["logs-*"]}' : undefined });
      assert.equal(reply.status, status, `${method} ${path}: ${reply.text}`);
      assert.equal(reply.headers.get('x-elastic-product'), 'Elasticsearch', `${method} ${path}`);
    }
    const license = await request(`${server.url}/_license`);
    assert.equal(license.json.license.status, 'active');
  });

  test('GET / and HEAD / for a browser are still the viewer; for an Elasticsearch client they are Elasticsearch', async () => {
    const browser = await request(`${server.url}/`, { headers: { accept: 'text/html,application/xhtml+xml', authorization: basic(server.org.ingestionKey) } });
    assert.equal(browser.status, 200);
    assert.match(browser.headers.get('content-type') ?? '', /text\/html/);
    assert.equal(browser.headers.get('x-elastic-product'), null);
    const plain = await request(`${server.url}/`);
    assert.match(plain.headers.get('content-type') ?? '', /text\/html/);
    const clients: Array<Record<string, string>> = [{ 'x-elastic-client-meta': 'es=8.19.2' }, { accept: 'application/vnd.elasticsearch+json; compatible-with=8' }, { authorization: basic(server.org.ingestionKey) }, { authorization: `ApiKey ${server.org.ingestionKey}` }];
    for (const headers of clients) {
      const reply = await request(`${server.url}/`, { headers });
      assert.equal(reply.status, 200);
      assert.equal(reply.json?.version?.number, '8.13.0', JSON.stringify(headers));
      assert.equal(reply.headers.get('x-elastic-product'), 'Elasticsearch');
      const head = await request(`${server.url}/`, { method: 'HEAD', headers });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get('x-elastic-product'), 'Elasticsearch');
    }
  });
});
