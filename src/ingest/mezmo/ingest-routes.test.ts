import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import zlib from 'node:zlib';
import { compileQuery } from '../../query/compile.js';
import { type TestServer, basic, jsonLines, request, startTestServer } from '../../testing/harness.js';

const BAD_REQUEST = { error: 'Bad or missing parameters.', code: 'BadRequest', status: 'error' };
const MISSING_HOSTNAME = { error: 'Missing param hostname.' };
const MISSING_CREDENTIALS = { error: 'Missing Credentials' };
const NOT_FOUND_OR_INACTIVE = { error: 'Account not found or inactive' };

let server: TestServer;
let key: string;
let serviceKey: string;

before(async () => {
  server = await startTestServer();
  key = server.org.ingestionKey;
  serviceKey = server.org.serviceKey;
});
after(() => server.close());

/** A unique word per test, so each test finds only its own lines. */
let counter = 0;
const marker = () => `marker${Date.now().toString(36)}x${counter++}`;

function ingest(query: string, body: unknown, headers: Record<string, string> = {}) {
  return request(`${server.url}/logs/ingest?${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=UTF-8', ...headers },
    body: typeof body === 'string' || body instanceof Uint8Array ? (body as unknown as string) : JSON.stringify(body),
  });
}

async function exported(word: string, account = serviceKey): Promise<any[]> {
  const to = Date.now() + 86_400_000 * 2;
  const reply = await request(`${server.url}/v1/export?from=0&to=${to}&prefer=head&query=${word}`, {
    headers: { servicekey: account },
  });
  assert.equal(reply.status, 200, reply.text);
  return jsonLines(reply.text);
}

describe('authentication', () => {
  const accepted: Array<[string, () => { query: string; headers: Record<string, string> }]> = [
    ['apikey header', () => ({ query: 'hostname=h', headers: { apikey: key } })],
    ['apiKey header in another case', () => ({ query: 'hostname=h', headers: { ApiKey: key } })],
    ['Basic with the key as user', () => ({ query: 'hostname=h', headers: { authorization: basic(key) } })],
    ['Basic with the key as password', () => ({ query: 'hostname=h', headers: { authorization: basic('username', key) } })],
    ['Basic with the key as user and something else as password', () => ({ query: 'hostname=h', headers: { authorization: basic(key, 'x') } })],
    ['Basic with the same key on both sides', () => ({ query: 'hostname=h', headers: { authorization: basic(key, key) } })],
    ['apikey query parameter', () => ({ query: `hostname=h&apikey=${key}`, headers: {} })],
    ['Authorization: Token', () => ({ query: 'hostname=h', headers: { authorization: `Token ${key}` } })],
    ['the same key by two methods', () => ({ query: 'hostname=h', headers: { apikey: key, authorization: basic(key) } })],
  ];
  for (const [name, form] of accepted) {
    test(`accepts ${name}`, async () => {
      const word = marker();
      const { query, headers } = form();
      const reply = await ingest(query, { lines: [{ line: `auth ${word}` }] }, headers);
      assert.equal(reply.status, 200, reply.text);
      assert.equal(reply.json.status, 'ok');
      assert.equal(typeof reply.json.batchID, 'string');
      assert.equal((await exported(word)).length, 1);
    });
  }

  test('two different keys in one request get 401 saying to send one key, and store nothing', async () => {
    const otherOrg = await server.createOrg('other-auth');
    const other = otherOrg.ingestionKey;
    const word = marker();
    const forms: Array<[string, Record<string, string>]> = [
      ['hostname=h', { apikey: key, authorization: basic(other) }],
      // One key as Basic's user, another as its password: neither may win silently.
      ['hostname=h', { authorization: basic(key, other) }],
      ['hostname=h', { authorization: basic(other, key) }],
      [`hostname=h&apikey=${other}`, { authorization: `Token ${key}` }],
      // Even two keys that are both unknown: the rule is about the request, not the keys.
      ['hostname=h&apikey=unknown1', { apikey: 'unknown2' }],
    ];
    for (const [query, headers] of forms) {
      const reply = await ingest(query, { lines: [{ line: `two keys ${word}` }] }, headers);
      assert.equal(reply.status, 401, reply.text);
      assert.equal(reply.json.code, 'Unauthorized');
      assert.match(reply.json.error, /one ingestion key per request/);
    }
    assert.equal((await exported(word)).length, 0);
    assert.equal((await exported(word, otherOrg.serviceKey)).length, 0);
  });

  test('no credentials get 401 Missing Credentials, even with an empty body', async () => {
    const withBody = await ingest('hostname=h', { lines: [{ line: 'x' }] });
    assert.equal(withBody.status, 401);
    assert.deepEqual(withBody.json, MISSING_CREDENTIALS);
    const empty = await request(`${server.url}/logs/ingest`, { method: 'POST' });
    assert.equal(empty.status, 401);
    assert.deepEqual(empty.json, MISSING_CREDENTIALS);
  });

  test('an unknown key, a revoked key and an inactive account get 403', async () => {
    const org = await server.createOrg('to-deactivate');
    const revoked = await server.withAccounts((accounts) => accounts.createKey(server.org.account, 'ingestion'));
    await server.withAccounts((accounts) => accounts.revokeKey(revoked.id));
    await server.withAccounts((accounts) => accounts.setActive(org.account, false));
    for (const bad of ['0123456789abcdef0123456789abcdef', revoked.key, org.ingestionKey]) {
      const reply = await ingest('hostname=h', { lines: [{ line: 'x' }] }, { apikey: bad });
      assert.equal(reply.status, 403, bad);
      assert.deepEqual(reply.json, NOT_FOUND_OR_INACTIVE);
    }
  });

  test('a service key gets a 401 that says it is a service key and ingestion needs an ingestion key', async () => {
    const reply = await ingest('hostname=h', { lines: [{ line: 'x' }] }, { apikey: serviceKey });
    assert.equal(reply.status, 401);
    assert.match(reply.json.error, /service key.*ingestion key/);
  });
});

describe('paths', () => {
  test('/logs/ingest/ and /logs/agent/ with a trailing slash ingest like the paths without', async () => {
    for (const path of ['/logs/ingest/', '/logs/agent/']) {
      const word = marker();
      const reply = await request(`${server.url}${path}?hostname=slash`, {
        method: 'POST',
        headers: { apikey: key, 'content-type': 'application/json' },
        body: JSON.stringify({ lines: [{ line: `slash ${word}` }] }),
      });
      assert.equal(reply.status, 200, `${path}: ${reply.text}`);
      assert.equal((await exported(word)).length, 1, path);
    }
  });
});

describe('parameters', () => {
  test('a missing hostname gets its own error body', async () => {
    const reply = await ingest('mac=&ip=', { lines: [{ line: 'x' }] }, { apikey: key });
    assert.equal(reply.status, 400);
    assert.deepEqual(reply.json, MISSING_HOSTNAME);
  });

  test('empty mac, ip and tags are accepted, and repeated tags all apply', async () => {
    const word = marker();
    const empty = await ingest('hostname=h&mac=&ip=&tags=', { lines: [{ line: `empty ${word}` }] }, { apikey: key });
    assert.equal(empty.status, 200, empty.text);
    const repeated = await ingest(
      'hostname=h&tags=alpha&tags=beta,gamma&ip=10.0.0.7&mac=aa:bb:cc:dd:ee:ff',
      { lines: [{ line: `tagged ${word}` }] },
      { apikey: key },
    );
    assert.equal(repeated.status, 200, repeated.text);
    const [first, second] = await exported(word);
    assert.deepEqual(first.tags, []);
    assert.equal(first._ip, '');
    assert.deepEqual(second.tags, ['alpha', 'beta', 'gamma']);
    assert.equal(second._ip, '10.0.0.7');
    assert.equal(second._mac, 'aa:bb:cc:dd:ee:ff');
  });

  const badParams = [
    ['a malformed mac', 'hostname=h&mac=not-a-mac'],
    ['a malformed ip', 'hostname=h&ip=999.1.1.1'],
    ['a hostname over 256 characters', `hostname=${'h'.repeat(257)}`],
    ['a tag over 80 characters', `hostname=h&tags=${'t'.repeat(81)}`],
    ['a now that is not a time', 'hostname=h&now=yesterday'],
  ];
  for (const [name, query] of badParams) {
    test(`${name} gets BadRequest and stores nothing`, async () => {
      const word = marker();
      const reply = await ingest(query, { lines: [{ line: word }] }, { apikey: key });
      assert.equal(reply.status, 400);
      assert.deepEqual(reply.json, BAD_REQUEST);
      assert.equal((await exported(word)).length, 0);
    });
  }
});

describe('bodies', () => {
  test('accepts {"lines":[...]}, the SDK {"e":"ls","ls":[...]} and the legacy agent keys', async () => {
    const word = marker();
    const documented = await ingest('hostname=h', { lines: [{ line: `documented ${word}`, app: 'a' }] }, { apikey: key });
    const sdk = await ingest('hostname=h', { e: 'ls', ls: [{ line: `sdk ${word}`, app: 'a' }] }, { apikey: key });
    const legacy = await request(`${server.url}/logs/agent?hostname=h`, {
      method: 'POST',
      headers: { apikey: key, 'content-type': 'application/json' },
      body: JSON.stringify({ e: 'ls', ls: [{ l: `legacy ${word}`, t: Date.now(), f: '/var/log/nginx/error.log', pid: 42 }] }),
    });
    for (const reply of [documented, sdk, legacy]) assert.equal(reply.status, 200, reply.text);
    const lines = await exported(word);
    assert.deepEqual(lines.map((line) => line._line), [`documented ${word}`, `sdk ${word}`, `legacy ${word}`]);
    assert.equal(lines[2]._file, '/var/log/nginx/error.log');
    assert.equal(lines[2]._app, 'error.log', 'app derives from the file name');
    assert.equal(lines[2].pid, 42);
  });

  test("accepts the Go SDK's body-level hostname, ip, mac, tags and apikey", async () => {
    const word = marker();
    const reply = await request(`${server.url}/logs/ingest`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        apikey: key,
        hostname: 'go-host',
        ip: '192.168.1.5',
        mac: '01:23:45:67:89:ab',
        tags: 'go,sdk',
        lines: [{ line: `go ${word}`, app: 'go-app', level: 'info' }],
      }),
    });
    assert.equal(reply.status, 200, reply.text);
    const [line] = await exported(word);
    assert.equal(line._host, 'go-host');
    assert.equal(line._ip, '192.168.1.5');
    assert.equal(line._mac, '01:23:45:67:89:ab');
    assert.deepEqual(line.tags, ['go', 'sdk']);
    assert.equal(line.level, 'INFO');
  });

  test('gzip bodies are inflated', async () => {
    const word = marker();
    const body = zlib.gzipSync(JSON.stringify({ lines: [{ line: `zipped ${word}` }] }));
    const reply = await ingest('hostname=h', body, { apikey: key, 'content-encoding': 'gzip' });
    assert.equal(reply.status, 200, reply.text);
    assert.equal((await exported(word))[0]._line, `zipped ${word}`);
  });

  const badBodies: Array<[string, string | Uint8Array, Record<string, string>]> = [
    ['broken JSON', '{"lines":[', {}],
    ['no lines array', '{"lines":"x"}', {}],
    ['a JSON array', '[{"line":"x"}]', {}],
    ['corrupt gzip', new Uint8Array([0x1f, 0x8b, 1, 2, 3, 4]), { 'content-encoding': 'gzip' }],
    ['an unknown content encoding', '{"lines":[]}', { 'content-encoding': 'br' }],
  ];
  for (const [name, body, headers] of badBodies) {
    test(`${name} gets BadRequest`, async () => {
      const reply = await ingest('hostname=h', body, { apikey: key, ...headers });
      assert.equal(reply.status, 400, reply.text);
      assert.deepEqual(reply.json, BAD_REQUEST);
    });
  }

  test('one element without a line refuses the whole request and stores nothing', async () => {
    const word = marker();
    const reply = await ingest('hostname=h', { lines: [{ line: `good ${word}` }, { app: 'no-line' }] }, { apikey: key });
    assert.equal(reply.status, 400);
    assert.deepEqual(reply.json, BAD_REQUEST);
    assert.equal((await exported(word)).length, 0);
  });

  test('bodies over 10 MB get 413 with a JSON error, compressed or not', async () => {
    const big = JSON.stringify({ lines: [{ line: 'x'.repeat(10 * 1024 * 1024) }] });
    const raw = await ingest('hostname=h', big, { apikey: key });
    assert.equal(raw.status, 413);
    assert.equal(raw.json.code, 'PayloadTooLarge');
    const bomb = zlib.gzipSync(big);
    assert.ok(bomb.length < 100_000, 'the compressed body itself is small');
    const zipped = await ingest('hostname=h', bomb, { apikey: key, 'content-encoding': 'gzip' });
    assert.equal(zipped.status, 413);
    assert.equal(zipped.json.code, 'PayloadTooLarge');
  });

  test('an empty line list is acknowledged', async () => {
    const reply = await ingest('hostname=h', { lines: [] }, { apikey: key });
    assert.equal(reply.status, 200);
    assert.equal(reply.json.status, 'ok');
  });
});

describe('line normalisation', () => {
  test('lines over 16 KB are truncated, on a character boundary', async () => {
    const word = marker();
    const long = `${word} ${'é'.repeat(20_000)}`;
    const reply = await ingest('hostname=h', { lines: [{ line: long }] }, { apikey: key });
    assert.equal(reply.status, 200);
    const [line] = await exported(word);
    assert.ok(Buffer.byteLength(line._line) <= 16 * 1024);
    assert.ok(Buffer.byteLength(line._line) > 16 * 1024 - 4);
    assert.ok(long.startsWith(line._line));
    assert.equal(line._mezmo_line_size, Buffer.byteLength(line._line));
  });

  test('app and level are cut to their limits', async () => {
    const word = marker();
    await ingest('hostname=h', { lines: [{ line: word, app: 'a'.repeat(600), level: 'l'.repeat(100) }] }, { apikey: key });
    const [line] = await exported(word);
    assert.equal(line._app.length, 512);
    assert.equal(line.level.length, 80);
  });

  test('timestamps in seconds, milliseconds and ISO 8601 are understood; absent or far-future ones become the receive time', async () => {
    const word = marker();
    const base = Date.now() - 3_600_000; // an hour ago, to the millisecond
    const before = Date.now();
    const reply = await ingest(
      'hostname=h',
      {
        lines: [
          { line: `ms ${word}`, timestamp: base },
          { line: `seconds ${word}`, timestamp: Math.floor(base / 1000) },
          { line: `iso ${word}`, timestamp: new Date(base).toISOString() },
          { line: `absent ${word}` },
          { line: `far ${word}`, timestamp: base + 3 * 86_400_000 },
          { line: `replayed ${word}`, timestamp: base - 3 * 86_400_000 },
        ],
      },
      { apikey: key },
    );
    const afterwards = Date.now();
    assert.equal(reply.status, 200);
    const byText = new Map((await exported(word)).map((line) => [line._line.split(' ')[0], line]));
    assert.equal(byText.get('ms')._ts, base);
    assert.equal(byText.get('seconds')._ts, Math.floor(base / 1000) * 1000);
    assert.equal(byText.get('iso')._ts, base);
    assert.equal(byText.get('iso').timestamp, new Date(base).toISOString());
    assert.equal(byText.get('replayed')._ts, base - 3 * 86_400_000, 'a past time within the retention is kept');
    for (const name of ['absent', 'far']) {
      const ts = byText.get(name)._ts;
      assert.ok(ts >= before && ts <= afterwards, `${name}: ${ts} should be the receive time`);
    }
  });

  test('a client clock that is off (measured from now) is corrected', async () => {
    const word = marker();
    const skew = 10 * 60_000; // the client runs ten minutes slow
    const clientNow = Date.now() - skew;
    const reply = await ingest(`hostname=h&now=${clientNow}`, { lines: [{ line: word, timestamp: clientNow - 1000 }] }, { apikey: key });
    assert.equal(reply.status, 200);
    const [line] = await exported(word);
    assert.ok(Math.abs(line._ts - (clientNow - 1000 + skew)) < 2000, `${line._ts} should be about ${clientNow - 1000 + skew}`);
  });

  test('levels are detected from text, and JSON lines yield message and level', async () => {
    const word = marker();
    await ingest(
      'hostname=h',
      {
        lines: [
          { line: `2024-01-01 12:00:00 [error] disk full ${word}` },
          { line: `WARNING: low memory ${word}` },
          { line: `plain ${word}` },
          { line: `given ${word}`, level: 'debug' },
          { line: `prefix {"message":"json ${word}","level":"fatal","status":503,"_account":"evil"}` },
        ],
      },
      { apikey: key },
    );
    const lines = await exported(word);
    assert.deepEqual(lines.map((line) => line.level), ['ERROR', 'WARN', '', 'DEBUG', 'FATAL']);
    const json = lines[4];
    assert.equal(json.message, `json ${word}`);
    assert.equal(json._logtype, 'json');
    assert.equal(json._status, 503, 'reserved root keys get an underscore');
    assert.notEqual(json._account, 'evil', 'protected keys are dropped');
  });

  test('meta may be an object or a JSON string', async () => {
    const word = marker();
    await ingest(
      'hostname=h',
      {
        lines: [
          { line: `object ${word}`, meta: { user: { id: 7 } } },
          { line: `string ${word}`, meta: '{"user":{"id":8}}' },
          { line: `scalar ${word}`, meta: '42' },
          { line: `text ${word}`, meta: 'not json' },
        ],
      },
      { apikey: key },
    );
    const lines = await exported(word);
    assert.deepEqual(lines[0].meta, { user: { id: 7 } });
    assert.deepEqual(lines[1].meta, { user: { id: 8 } });
    assert.equal(lines[2].meta, '42', 'a string that is not an object stays a string');
    assert.equal(lines[3].meta, 'not json');
  });

  test('the first type seen at a meta path wins; a later line of another type keeps its line but not its meta fields', async () => {
    const word = marker();
    const path = `field${word}`;
    const reply = await ingest(
      'hostname=h',
      {
        lines: [
          { line: `first ${word}`, meta: { [path]: 42 } },
          { line: `clash ${word}`, meta: { [path]: 'forty-two' } },
          { line: `same ${word}`, meta: { [path]: 43 } },
        ],
      },
      { apikey: key },
    );
    assert.equal(reply.status, 200);
    const rows = [];
    for await (const chunk of server.running.store.read(
      { account: server.org.account, fromMs: 0, toMs: Date.now() + 86_400_000, condition: compileQuery(word, null) },
      { prefer: 'head', limit: 10, chronological: true },
    )) {
      rows.push(...chunk);
    }
    assert.deepEqual(
      rows.map((row) => [row.line.split(' ')[0], row.meta_indexed]),
      [['first', true], ['clash', false], ['same', true]],
    );
    assert.deepEqual(JSON.parse(rows[1].meta), { [path]: 'forty-two' }, 'the clashing meta is still kept for display');
    // The rule is per organisation: another organisation may use the other type.
    const other = await server.createOrg('meta-other');
    await ingest('hostname=h', { lines: [{ line: `other ${word}`, meta: { [path]: 'text' } }] }, { apikey: other.ingestionKey });
    const [otherRow] = (await exported(word, other.serviceKey)).map((line) => line.meta);
    assert.deepEqual(otherRow, { [path]: 'text' });
  });
});

describe('hostile nesting', () => {
  test('meta or a JSON line nested thousands deep keeps its line, never a 500', async () => {
    const word = marker();
    const deep = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
    const body = `{"lines":[{"line":"deep meta ${word}","meta":${deep}},{"line":${JSON.stringify(`deep json ${word} ${deep}`)}}]}`;
    const reply = await ingest('hostname=h', body, { apikey: key });
    assert.equal(reply.status, 200, reply.text);
    const lines = await exported(word);
    assert.equal(lines.length, 2);
    assert.equal(lines[0].meta, undefined, 'meta too deep to keep as structure is dropped');
    assert.equal(lines[1]._logtype, 'text', 'a JSON line too deep is kept as text');
  });
});

describe('invalid UTF-16', () => {
  test('lone surrogates are replaced, never refused, and never fail other requests', async () => {
    const word = marker();
    const bad = `{"lines":[{"line":"lone \\ud83d ${word}","app":"\\ud800app"}]}`;
    const good = (i: number) => ingest('hostname=h', { lines: [{ line: `neighbour ${i} ${word}` }] }, { apikey: key });
    const replies = await Promise.all([ingest('hostname=h&tags=%ED%A0%80', bad, { apikey: key }), good(1), good(2), good(3)]);
    assert.deepEqual(replies.map((reply) => reply.status), [200, 200, 200, 200]);
    const lines = await exported(word);
    assert.equal(lines.length, 4);
    const lone = lines.find((line) => line._line.startsWith('lone'));
    assert.equal(lone._line, `lone \ufffd ${word}`);
    assert.equal(lone._app, '\ufffdapp');
  });

  test('cutting a field to its limit never splits a character', async () => {
    const word = marker();
    const reply = await ingest('hostname=h', { lines: [{ line: word, app: `${'a'.repeat(511)}🚀`, level: `${'l'.repeat(79)}🚀` }] }, { apikey: key });
    assert.equal(reply.status, 200, reply.text);
    const [line] = await exported(word);
    assert.equal(line._app, 'a'.repeat(511));
    assert.equal(line.level, 'L'.repeat(79));
  });
});

describe('CORS', () => {
  test('answers the browser preflight and labels the POST', async () => {
    const preflight = await request(`${server.url}/logs/ingest?hostname=b&now=1&tags=LogDNA-Browser`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    assert.ok(preflight.status === 204 || preflight.status === 200, String(preflight.status));
    assert.equal(preflight.headers.get('access-control-allow-origin'), 'http://app.example');
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /authorization/i);
    assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /POST/);
    const post = await ingest('hostname=b', { lines: [{ line: 'from a browser' }] }, { authorization: basic(key), origin: 'http://app.example' });
    assert.equal(post.status, 200);
    assert.equal(post.headers.get('access-control-allow-origin'), 'http://app.example');
  });

  test('refuses other origins on the routes that did not open to them', async () => {
    const preflight = await request(`${server.url}/v1/export?from=0&to=1`, {
      method: 'OPTIONS',
      headers: { origin: 'http://app.example', 'access-control-request-method': 'GET' },
    });
    assert.equal(preflight.headers.get('access-control-allow-origin'), null);
    assert.equal(preflight.status, 404);
    const exported = await request(`${server.url}/v1/export?from=0&to=1`, { headers: { origin: 'http://app.example' } });
    assert.equal(exported.headers.get('access-control-allow-origin'), null);
  });
});

test("a request's rows written in a reused buffer carry none of the bytes an earlier request left there", async () => {
  // Both bodies are the same size, so the intake takes the same size of pooled buffer for both
  // (src/lib/buffer-pool.ts), and the first one's, given back once stored, is the second's. The
  // second's rows are shorter: whatever the first left past them must not be written again.
  const first = await server.createOrg('pool-first');
  const second = await server.createOrg('pool-second');
  const [wordA, wordB] = [marker(), marker()];
  const lines = (word: string, filler: number) => Array.from({ length: 1500 }, (_, i) => ({ line: `${word} ${i} ${'x'.repeat(filler)}` }));
  const bodyA = JSON.stringify({ lines: lines(wordA, 300) });
  const shortB = JSON.stringify({ lines: lines(wordB, 10) });
  const bodyB = shortB.replace(/}$/, `${' '.repeat(bodyA.length - shortB.length)}}`);
  assert.equal(bodyB.length, bodyA.length);
  for (const [org, body] of [[first, bodyA], [second, bodyB]] as const) {
    const reply = await ingest('hostname=pool-host', body, { apikey: org.ingestionKey });
    assert.equal(reply.status, 200, reply.text);
  }
  assert.equal((await exported(wordA, first.serviceKey)).length, 1500, 'the first request stored once');
  assert.equal((await exported(wordB, second.serviceKey)).length, 1500);
  assert.equal((await exported(wordA, second.serviceKey)).length, 0, "none of the first organisation's lines in the second's");
});
