import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { NewAccount } from '../accounts/accounts.js';
import { fingerprint } from './cursor.js';
import { type TestServer, basic, jsonLines, request, startTestServer } from '../testing/harness.js';

let server: TestServer;
let org: NewAccount;
/** History of one line a second, starting two hours ago on a whole second (timestamps must be within a day). */
const BASE = Math.floor((Date.now() - 7_200_000) / 1000) * 1000;
const HISTORY = 250;

async function ingest(key: string, lines: unknown[], query = 'hostname=web-1') {
  const reply = await request(`${server.url}/logs/ingest?${query}`, {
    method: 'POST',
    headers: { apikey: key, 'content-type': 'application/json' },
    body: JSON.stringify({ lines }),
  });
  assert.equal(reply.status, 200, reply.text);
}

function exportV1(params: string, key = org.serviceKey) {
  return request(`${server.url}/v1/export?${params}`, { headers: { servicekey: key } });
}

function exportV2(params: string, key = org.serviceKey) {
  return request(`${server.url}/v2/export?${params}`, { headers: { servicekey: key } });
}

const fingerprintOf = (params: string) => fingerprint(org.account, Object.fromEntries(new URLSearchParams(params)));

const range = `from=${BASE - 1000}&to=${BASE + HISTORY * 1000}`;

before(async () => {
  server = await startTestServer();
  org = await server.createOrg('export-tests');
  const lines = Array.from({ length: HISTORY }, (_, i) => ({
    line: `history line ${i} ${i % 10 === 0 ? 'tenth' : 'other'}`,
    timestamp: BASE + i * 1000,
    app: i % 2 === 0 ? 'even' : 'odd',
    level: i % 5 === 0 ? 'error' : 'info',
  }));
  await ingest(org.ingestionKey, lines, 'hostname=web-1&tags=blue');
});
after(() => server.close());

describe('/v1/export', () => {
  test('returns an ingested line with every field intact', async () => {
    const ts = Date.now() - 5000;
    const sent = {
      line: 'round trip: payment accepted',
      timestamp: ts,
      app: 'billing',
      level: 'warn',
      env: 'staging',
      file: '/var/log/billing.log',
      meta: { order: { id: 991, paid: true }, region: 'eu' },
    };
    await ingest(org.ingestionKey, [sent], 'hostname=pay-1&ip=10.1.2.3&mac=00:11:22:33:44:55&tags=prod,eu');
    const reply = await exportV1(`from=${ts - 1}&to=${ts + 1}&query=payment`);
    assert.equal(reply.status, 200);
    assert.match(reply.headers.get('content-type') ?? '', /application\/jsonl/);
    const [record] = jsonLines(reply.text);
    assert.match(record._id, /^\d+$/);
    assert.match(record._bid, /^[0-9a-f-]{36}$/);
    assert.deepEqual(
      { ...record, _id: undefined, _bid: undefined },
      {
        _id: undefined,
        _bid: undefined,
        _ts: ts,
        timestamp: new Date(ts).toISOString(),
        _line: sent.line,
        _app: 'billing',
        _host: 'pay-1',
        _file: '/var/log/billing.log',
        _ip: '10.1.2.3',
        _mac: '00:11:22:33:44:55',
        _account: org.account,
        _ingester: 'logstead',
        _logtype: 'text',
        _mezmo_line_size: Buffer.byteLength(sent.line),
        level: 'WARN',
        env: 'staging',
        tags: ['prod', 'eu'],
        meta: sent.meta,
      },
    );
  });

  test('prefer=tail (the default) returns the newest lines, head the oldest, both in time order', async () => {
    const tail = jsonLines((await exportV1(`${range}&size=3`)).text);
    assert.deepEqual(tail.map((line) => line._ts), [BASE + 247_000, BASE + 248_000, BASE + 249_000]);
    const head = jsonLines((await exportV1(`${range}&size=3&prefer=head`)).text);
    assert.deepEqual(head.map((line) => line._ts), [BASE, BASE + 1000, BASE + 2000]);
  });

  test('from and to may be seconds or milliseconds, and to-seconds covers its whole second', async () => {
    const seconds = jsonLines((await exportV1(`from=${BASE / 1000}&to=${BASE / 1000 + 9}&prefer=head`)).text);
    const millis = jsonLines((await exportV1(`from=${BASE}&to=${BASE + 9999}&prefer=head`)).text);
    assert.equal(seconds.length, 10);
    assert.deepEqual(seconds, millis);
  });

  test('hosts, apps, levels, tags and query filter', async () => {
    const count = async (params: string) => jsonLines((await exportV1(`${range}&${params}`)).text).length;
    assert.equal(await count('apps=even'), 125);
    assert.equal(await count('apps=even,odd'), 250);
    assert.equal(await count('levels=error'), 50);
    assert.equal(await count('levels=ERROR&apps=odd'), 25);
    assert.equal(await count('hosts=web-1'), 250);
    assert.equal(await count('hosts=web-2'), 0);
    assert.equal(await count('tags=blue'), 250);
    assert.equal(await count('tags=green'), 0);
    assert.equal(await count('query=tenth'), 25);
    assert.equal(await count('q=TENTH'), 25, 'q is an alias, and words are case-insensitive');
    assert.equal(await count('query=history%20tenth'), 25, 'all words must appear');
  });

  test('query takes the search language', async () => {
    const count = async (query: string) => jsonLines((await exportV1(`${range}&query=${encodeURIComponent(query)}`)).text).length;
    assert.equal(await count('app:even level:error'), 25);
    assert.equal(await count('app:even -level:error'), 100);
    assert.equal(await count('tenth OR app:odd'), 25 + 125);
    assert.equal(await count('"history line 1"'), 1 + 10 + 100, 'a phrase is a word-start prefix: 1, 1x, 1xx');
    assert.equal(await count('==tenth'), 25);
    assert.equal(await count('=TENTH'), 0, '= is case-sensitive');
  });

  test('a query that does not parse gets 400 naming the position and what was expected', async () => {
    for (const version of ['v1', 'v2']) {
      const reply = await request(`${server.url}/${version}/export?${range}&query=${encodeURIComponent('app:even (level:error')}`, {
        headers: { servicekey: org.serviceKey },
      });
      assert.equal(reply.status, 400);
      assert.equal(reply.json.code, 'BadRequest');
      assert.equal(reply.json.position, 21);
      assert.match(reply.json.expected, /"\)" to close the group opened at position 9/);
      assert.match(reply.json.error, /position 21/);
    }
  });

  test('size is capped at 10,000 lines and the body is streamed', async () => {
    const ts = Date.now() - 60_000;
    const lines = Array.from({ length: 10_050 }, (_, i) => ({ line: `bulk ${i}`, timestamp: ts, app: 'bulk' }));
    await ingest(org.ingestionKey, lines);
    const reply = await exportV1(`from=${ts}&to=${ts}&apps=bulk&size=50000`);
    assert.equal(reply.status, 200);
    assert.equal(jsonLines(reply.text).length, 10_000);
    assert.equal(reply.headers.get('transfer-encoding'), 'chunked');
    assert.equal(reply.headers.get('content-length'), null);
  });

  const badParams: Array<[string, string, RegExp]> = [
    ['a missing from', `to=${BASE}`, /from/],
    ['a missing to', `from=${BASE}`, /to/],
    ['a from that is not a number', `from=yesterday&to=${BASE}`, /from/],
    ['from after to', `from=${BASE + 10}&to=${BASE}`, /from/],
    ['a size of zero', `${range}&size=0`, /size/],
    ['a size that is not a number', `${range}&size=many`, /size/],
    ['an unknown prefer', `${range}&prefer=middle`, /prefer/],
    ['a to beyond year 9999', `from=0&to=99999999999999999999`, /out of range/],
    ['a from beyond 2^53', `from=10000000000000000&to=10000000000000001`, /out of range/],
    ['email on a server without SMTP', `${range}&email=ops@example.com`, /cannot send e-mail/],
  ];
  for (const [name, params, message] of badParams) {
    test(`${name} gets 400 with a message`, async () => {
      const reply = await exportV1(params);
      assert.equal(reply.status, 400);
      assert.equal(reply.json.code, 'BadRequest');
      assert.match(reply.json.error, message);
    });
  }
});

describe('/v2/export', () => {
  test('pages through a range returning every line exactly once, in both directions', async () => {
    for (const prefer of ['head', 'tail']) {
      const seen: number[] = [];
      let token: string | null = null;
      let pages = 0;
      do {
        const pageParam: string = token ? `&pagination_id=${encodeURIComponent(token)}` : '';
        const reply = await exportV2(`${range}&size=40&prefer=${prefer}${pageParam}`);
        assert.equal(reply.status, 200, reply.text);
        assert.ok(reply.json.lines.length <= 40);
        seen.push(...reply.json.lines.map((line: { _ts: number }) => line._ts));
        token = reply.json.pagination_id;
        pages++;
      } while (token);
      assert.equal(pages, 7, prefer);
      assert.equal(seen.length, HISTORY, prefer);
      assert.equal(new Set(seen).size, HISTORY, `${prefer}: no line twice`);
    }
  });

  test('the last page has a null pagination_id', async () => {
    const reply = await exportV2(`${range}&size=1000`);
    assert.equal(reply.json.lines.length, HISTORY);
    assert.equal(reply.json.pagination_id, null);
  });

  test('a cursor is bound to its organisation and parameters, whatever their order', async () => {
    const first = await exportV2(`${range}&size=10&apps=even`);
    const token = encodeURIComponent(first.json.pagination_id);
    const reordered = await exportV2(`apps=even&size=10&${range}&pagination_id=${token}`);
    assert.equal(reordered.status, 200);
    assert.equal(reordered.json.lines.length, 10);
    const changed = await exportV2(`${range}&size=10&apps=odd&pagination_id=${token}`);
    assert.equal(changed.status, 400);
    assert.match(changed.json.error, /pagination_id/);
    const elsewhere = await exportV2(`${range}&size=10&apps=even&pagination_id=${token}`, server.org.serviceKey);
    assert.equal(elsewhere.status, 400, 'another organisation cannot use the token');
    assert.match(elsewhere.json.error, /same organisation/);
    const forged = await exportV2(`${range}&size=10&apps=even&pagination_id=not-a-token`);
    assert.equal(forged.status, 400);
    const params = fingerprintOf(`${range}&size=10&apps=even`);
    for (const t of [1e300, 2 ** 53, 1.5, -1]) {
      const hostile = Buffer.from(JSON.stringify({ p: params, t, i: '1' })).toString('base64url');
      assert.equal((await exportV2(`${range}&size=10&apps=even&pagination_id=${hostile}`)).status, 400, String(t));
    }
    const twice = await exportV2(`${range}&size=10&apps=even&pagination_id=${token}&pagination_id=${token}`);
    assert.equal(twice.status, 400);
    assert.match(twice.json.error, /more than once/);
  });
});

describe('service key authentication', () => {
  const forms: Array<[string, () => { path: string; headers: Record<string, string> }]> = [
    ['servicekey header', () => ({ path: '', headers: { servicekey: org.serviceKey } })],
    ['Basic with the key as user', () => ({ path: '', headers: { authorization: basic(org.serviceKey) } })],
    ['Basic with the key as password', () => ({ path: '', headers: { authorization: basic('user', org.serviceKey) } })],
    ['Authorization: Token', () => ({ path: '', headers: { authorization: `Token ${org.serviceKey}` } })],
    ['servicekey query parameter (legacy CLI)', () => ({ path: `&servicekey=${org.serviceKey}`, headers: {} })],
  ];
  for (const [name, form] of forms) {
    test(`accepts ${name}`, async () => {
      const { path, headers } = form();
      for (const version of ['v1', 'v2']) {
        const reply = await request(`${server.url}/${version}/export?${range}&size=1${path}`, { headers });
        assert.equal(reply.status, 200, `${version}: ${reply.text}`);
      }
    });
  }

  test('no key, an unknown key or an ingestion key gets 401', async () => {
    const attempts: Array<Record<string, string>> = [{}, { servicekey: 'ffffffffffffffffffffffffffffffff' }, { servicekey: org.ingestionKey }];
    for (const headers of attempts) {
      for (const version of ['v1', 'v2']) {
        const reply = await request(`${server.url}/${version}/export?${range}`, { headers });
        assert.equal(reply.status, 401);
        assert.equal(reply.json.code, 'Unauthorized');
      }
    }
  });
});

describe('tenancy', () => {
  test('two organisations never see each other\'s lines', async () => {
    const a = await server.createOrg('tenant-a');
    const b = await server.createOrg('tenant-b');
    const ts = Date.now() - 1000;
    await ingest(a.ingestionKey, [{ line: 'secret of a', timestamp: ts }]);
    await ingest(b.ingestionKey, [{ line: 'secret of b', timestamp: ts }]);
    const window = `from=${ts - 10}&to=${ts + 10}`;
    for (const [tenant, own] of [[a, 'secret of a'], [b, 'secret of b']] as const) {
      const v1 = jsonLines((await exportV1(window, tenant.serviceKey)).text);
      assert.deepEqual(v1.map((line) => line._line), [own]);
      const v2 = await exportV2(window, tenant.serviceKey);
      assert.deepEqual(v2.json.lines.map((line: { _line: string }) => line._line), [own]);
    }
  });
});
