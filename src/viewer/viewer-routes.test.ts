import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestServer, jsonLines, request, startTestServer } from '../testing/harness.js';

let server: TestServer;
const base = Math.floor((Date.now() - 3_600_000) / 1000) * 1000;

before(async () => {
  server = await startTestServer();
  // Two hosts and two apps interleaved, one line a second.
  const lines = Array.from({ length: 40 }, (_, i) => ({ line: `step ${i}`, app: i % 2 ? 'api' : 'worker', level: i % 4 ? 'info' : 'error', timestamp: base + i * 1000 }));
  for (const host of ['alpha', 'beta']) {
    const reply = await request(`${server.url}/logs/ingest?hostname=${host}&tags=${host === 'alpha' ? 'blue' : 'blue,green'}`, {
      method: 'POST',
      headers: { apikey: server.org.ingestionKey, 'content-type': 'application/json' },
      body: JSON.stringify({ lines }),
    });
    assert.equal(reply.status, 200);
  }
});
after(() => server.close());

const get = (path: string, key = server.org.serviceKey) => request(`${server.url}${path}`, { headers: { servicekey: key } });
const range = `from=${base}&to=${base + 60_000}`;

test('facets list hosts, apps, levels and tags with counts, under the same filters', async () => {
  const facets = (await get(`/v1/viewer/facets?${range}`)).json;
  assert.deepEqual(facets.host, [{ value: 'alpha', count: 40 }, { value: 'beta', count: 40 }]);
  assert.deepEqual(facets.app, [{ value: 'api', count: 40 }, { value: 'worker', count: 40 }]);
  assert.deepEqual(facets.level, [{ value: 'INFO', count: 60 }, { value: 'ERROR', count: 20 }]);
  assert.deepEqual(facets.tag, [{ value: 'blue', count: 80 }, { value: 'green', count: 40 }]);
  const filtered = (await get(`/v1/viewer/facets?${range}&apps=api&query=${encodeURIComponent('level:error')}`)).json;
  assert.deepEqual(filtered.host, [], 'level:error lines are all from the worker app');
  const errors = (await get(`/v1/viewer/facets?${range}&apps=worker&query=${encodeURIComponent('level:error')}`)).json;
  assert.deepEqual(errors.host, [{ value: 'alpha', count: 10 }, { value: 'beta', count: 10 }]);
});

test("each facet menu counts under the query, the range and the other menus' selections, not its own", async () => {
  const facets = (await get(`/v1/viewer/facets?${range}&hosts=beta&apps=api&levels=info&tags=green`)).json;
  // Hosts: apps=api, levels=info, tags=green apply; hosts=beta does not, so alpha still shows (it has no green tag).
  assert.deepEqual(facets.host, [{ value: 'beta', count: 20 }]);
  // Apps: host beta, level info, tag green, not apps=api: both apps show.
  assert.deepEqual(facets.app, [{ value: 'api', count: 20 }, { value: 'worker', count: 10 }]);
  // Levels: host beta, app api, tag green: every api line is info.
  assert.deepEqual(facets.level, [{ value: 'INFO', count: 20 }]);
  // Tags: host beta, app api, level info: beta's lines carry both tags.
  assert.deepEqual(facets.tag, [{ value: 'blue', count: 20 }, { value: 'green', count: 20 }]);
  const byHost = (await get(`/v1/viewer/facets?${range}&hosts=alpha`)).json;
  assert.deepEqual(byHost.host, [{ value: 'alpha', count: 40 }, { value: 'beta', count: 40 }], 'the selected host does not hide the others');
  assert.deepEqual(byHost.tag, [{ value: 'blue', count: 40 }], 'other menus follow the host selection');
  const searched = (await get(`/v1/viewer/facets?${range}&levels=error&query=step`)).json;
  assert.deepEqual(searched.level, [{ value: 'INFO', count: 60 }, { value: 'ERROR', count: 20 }]);
  assert.deepEqual(searched.host, [{ value: 'alpha', count: 10 }, { value: 'beta', count: 10 }]);
});

test('context shows the lines before and after from the same host, app or both, and pages outwards', async () => {
  const [target] = jsonLines((await get(`/v1/export?${range}&hosts=alpha&query=${encodeURIComponent('"step 20"')}`)).text);
  const context = (await get(`/v1/viewer/context?id=${target._id}&ts=${target._ts}&by=host&before=3&after=2`)).json;
  assert.equal(context.line._line, 'step 20');
  assert.deepEqual(context.before.map((l: { _line: string }) => l._line), ['step 17', 'step 18', 'step 19']);
  assert.deepEqual(context.after.map((l: { _line: string }) => l._line), ['step 21', 'step 22']);
  assert.ok([...context.before, ...context.after].every((l: { _host: string }) => l._host === 'alpha'));

  const both = (await get(`/v1/viewer/context?id=${target._id}&ts=${target._ts}&by=both&before=2&after=2`)).json;
  assert.deepEqual(both.before.map((l: { _line: string }) => l._line), ['step 16', 'step 18'], 'same host and same app (worker)');

  const byApp = (await get(`/v1/viewer/context?id=${target._id}&ts=${target._ts}&by=app&before=2&after=0&anchor=before`)).json;
  assert.equal(byApp.before.length, 2);
  assert.ok(byApp.before.every((l: { _app: string }) => l._app === 'worker'));
  assert.deepEqual(byApp.after, []);

  const first = context.before[0];
  const more = (await get(`/v1/viewer/context?id=${first._id}&ts=${first._ts}&by=host&before=2&anchor=before`)).json;
  assert.deepEqual(more.before.map((l: { _line: string }) => l._line), ['step 15', 'step 16'], 'load more before');
});

test("context refuses bad parameters and another organisation's lines", async () => {
  const [target] = jsonLines((await get(`/v1/export?${range}&size=1`)).text);
  assert.equal((await get(`/v1/viewer/context?id=x&ts=1`)).status, 400);
  assert.equal((await get(`/v1/viewer/context?id=${target._id}&ts=${target._ts}&by=pod`)).status, 400);
  const other = await server.createOrg('other');
  assert.equal((await get(`/v1/viewer/context?id=${target._id}&ts=${target._ts}`, other.serviceKey)).status, 404);
  assert.deepEqual((await get(`/v1/viewer/facets?${range}`, other.serviceKey)).json.host, []);
});

test('the largest search allowed runs on every search endpoint, and one term more is refused', async () => {
  // 200 terms, near 10,000 characters; percent-encoded, the URL is past Node's default 16 KiB limit.
  const terms = [...Array.from({ length: 199 }, (_, i) => `q${i}${'é'.repeat(40)}`), 'step'];
  const query = encodeURIComponent(terms.join(' OR '));
  assert.ok(query.length > 32 * 1024);
  const exported = await get(`/v1/export?${range}&query=${query}`);
  assert.equal(exported.status, 200, exported.text);
  assert.equal(jsonLines(exported.text).length, 80);
  const histogram = await get(`/v1/histogram?${range}&query=${query}`);
  assert.equal(histogram.status, 200, histogram.text);
  assert.equal(histogram.json.buckets.reduce((sum: number, bucket: { count: number }) => sum + bucket.count, 0), 80);
  const facets = await get(`/v1/viewer/facets?${range}&query=${query}`);
  assert.equal(facets.status, 200, facets.text);
  assert.deepEqual(facets.json.host, [{ value: 'alpha', count: 40 }, { value: 'beta', count: 40 }]);

  const tooMany = await get(`/v1/export?${range}&query=${encodeURIComponent(`${terms.join(' OR ')} OR x`)}`);
  assert.equal(tooMany.status, 400);
  assert.equal(tooMany.json.code, 'BadRequest');
  assert.match(tooMany.json.error, /at most 200 search terms/);
});

test('a reversed time range gets the same catalogued answer on every read route', async () => {
  const reversed = `from=${base + 60_000}&to=${base}`;
  const answers = await Promise.all(['/v1/export', '/v2/export', '/v1/histogram', '/v1/viewer/facets'].map((path) => get(`${path}?${reversed}`)));
  for (const answer of answers) {
    assert.equal(answer.status, 400);
    assert.deepEqual(answer.json, { error: 'The time range is reversed: "from" must not be later than "to".', code: 'BadRequest', status: 'error' });
  }
});

test('malformed parameters are refused with a message naming them, not ignored', async () => {
  const [target] = jsonLines((await get(`/v1/export?${range}&size=1`)).text);
  const cases: Array<[string, string]> = [
    [`/v1/viewer/context?id=${target._id}&ts=${target._ts}&anchor=sideways`, 'anchor'],
    [`/v1/export?${range}&prefer=middle`, 'prefer'],
    [`/v1/export?${range}&levels=${'x'.repeat(81)}`, 'levels'],
    [`/v1/viewer/facets?${range}&hosts=${'h'.repeat(257)}`, 'hosts'],
    [`/v1/histogram?from=abc&to=${base}`, 'from'],
    [`/v1/histogram?${range}&buckets=many`, 'buckets'],
  ];
  for (const [path, name] of cases) {
    const answer = await get(path);
    assert.equal(answer.status, 400, path);
    assert.match(answer.json.error, new RegExp(`"${name}"`), path);
  }
  assert.equal((await get(`/v1/export?${range}&prefer=HEAD&size=1`)).status, 200, 'choices are case-insensitive as before');
});
