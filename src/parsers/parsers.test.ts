/**
 * Custom parsing rules through the API, as admins and readers call it, and what ingest makes of
 * them: fields typed as declared, `_logtype` the rule's name, searchable at once; patterns RE2
 * cannot run refused with the reason and nothing saved; a rule written by another node (straight
 * into the shared database) applied here within a second.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type MemberSession, type TestServer, jsonLines, request, startTestServer } from '../testing/harness.js';
import { MAX_PARSERS_PER_ACCOUNT, MAX_PATTERN_CHARS } from './parser-rules.js';
import { ParserStore } from './parser-store.js';

let server: TestServer;
let admin: MemberSession;
let reader: MemberSession;
before(async () => {
  server = await startTestServer();
  admin = await server.signInAs('admin@example.com', 'admin');
  reader = await server.signInAs('reader@example.com', 'readonly');
});
after(() => server.close());

async function call(who: MemberSession, method: string, path: string, body?: unknown) {
  return request(`${server.url}${path}`, {
    method,
    headers: { ...who.headers(method !== 'GET'), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function ingest(hostname: string, lines: Array<Record<string, unknown>>) {
  const reply = await request(`${server.url}/logs/ingest?hostname=${hostname}`, {
    method: 'POST',
    headers: { apikey: server.org.ingestionKey, 'content-type': 'application/json' },
    body: JSON.stringify({ lines }),
  });
  assert.equal(reply.status, 200, reply.text);
}

async function exported(query: string): Promise<Array<Record<string, any>>> {
  const reply = await request(`${server.url}/v1/export?from=${Date.now() - 3_600_000}&to=${Date.now() + 60_000}&query=${encodeURIComponent(query)}`, { headers: { servicekey: server.org.serviceKey } });
  assert.equal(reply.status, 200, reply.text);
  return jsonLines(reply.text);
}

const CHECKOUT = { name: 'checkout', apps: ['shop'], hosts: [], query: '', pattern: '^order (?P<order_id>\\d+) took (?P<took_ms>\\d+)ms paid=(?P<paid>\\w+) (?P<level>[A-Z]+)', types: { order_id: 'string', took_ms: 'number', paid: 'boolean' } };

test('an admin saves a rule; it applies to the next lines of its app, typed, searchable, with its name as _logtype', async () => {
  const saved = await call(admin, 'POST', '/v1/config/parsers', CHECKOUT);
  assert.equal(saved.status, 200, saved.text);
  assert.equal(saved.json.name, 'checkout');
  assert.deepEqual(saved.json.types, CHECKOUT.types);
  assert.deepEqual((await call(reader, 'GET', '/v1/config/parsers')).json.map((parser: { id: string }) => parser.id), [saved.json.id]);
  assert.equal((await call(reader, 'GET', `/v1/config/parsers/${saved.json.id}`)).json.pattern, CHECKOUT.pattern);

  await ingest('shop-1', [
    { line: 'order 0042 took 1250ms paid=true WARN', app: 'shop' },
    { line: 'order 43 took 80ms paid=false INFO', app: 'shop' },
    { line: 'order 44 took 999ms paid=true ERROR', app: 'other' },
  ]);
  const slow = await exported('took_ms:>1000');
  assert.equal(slow.length, 1);
  assert.equal(slow[0]._logtype, 'checkout');
  assert.equal(slow[0].order_id, '0042', 'declared a string: its zeros kept');
  assert.equal(slow[0].took_ms, 1250);
  assert.equal(slow[0].paid, true);
  assert.equal(slow[0].level, 'WARN', 'a level capture sets the line level');
  const other = await exported('"order 44"');
  assert.equal(other[0]._logtype, 'text', 'another app: the rule does not apply');
  assert.equal(other[0].took_ms, undefined);

  const changed = await call(admin, 'PUT', `/v1/config/parsers/${saved.json.id}`, { ...CHECKOUT, apps: ['shop', 'other'] });
  assert.equal(changed.status, 200, changed.text);
  await ingest('shop-1', [{ line: 'order 45 took 5ms paid=true INFO', app: 'other' }]);
  assert.equal((await exported('order_id:45'))[0]._logtype, 'checkout');

  assert.equal((await call(admin, 'DELETE', `/v1/config/parsers/${saved.json.id}`)).status, 200);
  assert.equal((await call(admin, 'GET', `/v1/config/parsers/${saved.json.id}`)).status, 404);
  await ingest('shop-1', [{ line: 'order 46 took 5ms paid=true INFO', app: 'shop' }]);
  assert.equal((await exported('"order 46"'))[0]._logtype, 'text');
});

test('readers may read and test but not write; writes are audited', async () => {
  assert.equal((await call(reader, 'POST', '/v1/config/parsers', CHECKOUT)).status, 403);
  const saved = await call(admin, 'POST', '/v1/config/parsers', { ...CHECKOUT, name: 'audited' });
  assert.equal(saved.status, 200);
  assert.equal((await call(reader, 'PUT', `/v1/config/parsers/${saved.json.id}`, CHECKOUT)).status, 403);
  assert.equal((await call(reader, 'DELETE', `/v1/config/parsers/${saved.json.id}`)).status, 403);
  const trail = await call(admin, 'GET', '/v1/config/audit?resource=parser');
  assert.equal(trail.status, 200, trail.text);
  assert.ok(trail.json.records.some((record: { action: string; actor: string }) => record.action === 'parser.create' && record.actor === admin.email), trail.text);
  assert.equal((await call(admin, 'DELETE', `/v1/config/parsers/${saved.json.id}`)).status, 200);
});

test('the test route answers the fields of given lines, or of the last lines the rule would apply to', async () => {
  const given = await call(reader, 'POST', '/v1/config/parsers/test', { pattern: 'status=(?P<status>\\d+) (?P<ok>\\w+)', types: { status: 'number', ok: 'boolean' }, lines: ['status=503 false', 'nothing'] });
  assert.equal(given.status, 200, given.text);
  assert.deepEqual(given.json.lines, [
    { line: 'status=503 false', matched: true, fields: { _status: 503, ok: false } },
    { line: 'nothing', matched: false, fields: null },
  ]);
  await ingest('tester', [{ line: 'job 7 done in 12s', app: 'jobs' }, { line: 'job 8 done in 30s', app: 'jobs' }, { line: 'job 9 done in 1s', app: 'elsewhere' }]);
  const stored = await call(reader, 'POST', '/v1/config/parsers/test', { apps: ['jobs'], pattern: 'job (?P<job>\\d+) done in (?P<seconds>\\d+)s', types: { seconds: 'number' } });
  assert.equal(stored.status, 200, stored.text);
  assert.deepEqual(stored.json.lines.map((line: { fields: unknown }) => line.fields), [{ job: '8', seconds: 30 }, { job: '7', seconds: 12 }], 'newest first, only the app asked for');
});

test("the test route reads a scoped member's last lines inside their scope only (issue 39, point 6)", async () => {
  await ingest('tester', [{ line: 'payout 1 to employee-7 done', app: 'payroll' }, { line: 'payout 2 to invoice-9 done', app: 'billing' }]);
  const group = await request(`${server.url}/v1/config/groups`, {
    method: 'POST',
    headers: { servicekey: server.org.serviceKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'billing only', access_scopes: 'app:billing' }),
  });
  assert.equal(group.status, 200, group.text);
  const scoped = await server.signInAs('billing.reader@example.com', 'readonly', { groups: [group.json.id] });
  const body = { pattern: 'payout (?P<payout>\\d+) to (?P<to>\\S+) done', types: {}, query: 'payout' };
  const seen = await call(scoped, 'POST', '/v1/config/parsers/test', body);
  assert.equal(seen.status, 200, seen.text);
  assert.deepEqual(seen.json.lines.map((line: { fields: unknown }) => line.fields), [{ payout: '2', to: 'invoice-9' }]);
  assert.ok(!seen.text.includes('employee-7'));
  const all = await call(admin, 'POST', '/v1/config/parsers/test', body);
  assert.deepEqual(all.json.lines.map((line: { fields: unknown }) => line.fields), [{ payout: '2', to: 'invoice-9' }, { payout: '1', to: 'employee-7' }]);
});

test('bad rules get a 400 that says why, and nothing is saved', async () => {
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ pattern: '(?P<word>\\w+) \\1' }, /cannot run in RE2/],
    [{ pattern: '(?P<word>\\w+)(?=x)' }, /cannot run in RE2/],
    [{ pattern: '(?P<word>[a-z' }, /cannot run in RE2/],
    [{ pattern: `(?P<word>${'a'.repeat(MAX_PATTERN_CHARS)})` }, /limit is 2000/],
    [{ pattern: `(?P<word>${'\\w{1000}'.repeat(11)})` }, /too large/],
    [{ pattern: '\\d+' }, /no named capture/],
    [{ pattern: '(?P<host>\\S+)' }, /may not be named host/],
    [{ pattern: '(?P<word>\\w+)', types: { other: 'number' } }, /does not capture/],
    [{ pattern: '(?P<word>\\w+)', types: { word: 'date' } }, /must be one of/],
    [{ pattern: '(?P<word>\\w+)', query: 'status:>=' }, /./],
    [{ pattern: '(?P<word>\\w+)', name: '' }, /name/],
  ];
  for (const [change, reason] of cases) {
    const reply = await call(admin, 'POST', '/v1/config/parsers', { ...CHECKOUT, name: 'bad', ...change });
    assert.equal(reply.status, 400, `${JSON.stringify(change)}: ${reply.text}`);
    assert.equal(reply.json.code, 'BadRequest');
    assert.match(reply.json.error, reason);
    // The configuration envelope: each fault with the field it is about, for a form to show.
    assert.ok(Array.isArray(reply.json.details) && reply.json.details.length > 0, `details: ${reply.text}`);
    if (!change.query && !('name' in change)) assert.match(reply.json.details[0].key, change.types ? /^types/ : /^pattern$/);
    const tested = await call(reader, 'POST', '/v1/config/parsers/test', { pattern: change.pattern, types: change.types, lines: ['x'] });
    if (!change.query && !('name' in change)) assert.equal(tested.status, 400, `the test route refuses ${JSON.stringify(change)} too`);
  }
  assert.deepEqual((await call(admin, 'GET', '/v1/config/parsers')).json, []);
  assert.equal((await call(admin, 'PUT', '/v1/config/parsers/no-such-id', CHECKOUT)).status, 404);
  assert.equal((await call(admin, 'DELETE', '/v1/config/parsers/no-such-id')).status, 404);
});

test('names are unique, and an organisation has at most its limit of rules; the one over is refused whole', async () => {
  const first = await call(admin, 'POST', '/v1/config/parsers', { ...CHECKOUT, name: 'rule 0' });
  assert.equal(first.status, 200);
  const twin = await call(admin, 'POST', '/v1/config/parsers', { ...CHECKOUT, name: 'rule 0' });
  assert.equal(twin.status, 409, twin.text);
  for (let i = 1; i < MAX_PARSERS_PER_ACCOUNT; i++) assert.equal((await call(admin, 'POST', '/v1/config/parsers', { ...CHECKOUT, name: `rule ${i}` })).status, 200);
  const over = await call(admin, 'POST', '/v1/config/parsers', { ...CHECKOUT, name: 'one too many' });
  assert.equal(over.status, 409, over.text);
  assert.match(over.json.error, /most it may have/);
  const listed = (await call(admin, 'GET', '/v1/config/parsers')).json as Array<{ id: string; name: string }>;
  assert.equal(listed.length, MAX_PARSERS_PER_ACCOUNT);
  assert.ok(!listed.some((parser) => parser.name === 'one too many'));
  for (const parser of listed) assert.equal((await call(admin, 'DELETE', `/v1/config/parsers/${parser.id}`)).status, 200);
});

test('a rule written at another node (straight into the shared database) applies here within a second', async () => {
  const otherNode = new ParserStore(server.running.db);
  const made = await otherNode.create(server.org.account, { name: 'from elsewhere', apps: ['remote'], hosts: [], query: '', pattern: 'user=(?P<user_name>\\w+)', types: {} }, MAX_PARSERS_PER_ACCOUNT);
  assert.ok(typeof made === 'object');
  // The next reload (every second) plus room for a busy machine's late timers.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  await ingest('node-b', [{ line: 'login user=alice', app: 'remote' }]);
  const [line] = await exported('user_name:alice');
  assert.equal(line?._logtype, 'from elsewhere');
  assert.equal(await otherNode.delete(server.org.account, made.id), true);
});
