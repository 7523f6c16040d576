import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { type MemberSession, type TestServer, request, startTestServer } from '../testing/harness.js';

/**
 * GET /v1/config/meta-fields for readers with and without an access scope (issue 39, point 6):
 * the owner (a key, or an owner member) gets the organisation's registry as it is; a member
 * scoped to `app:billing` gets only the fields billing's stored lines carry, with their types,
 * and no day's counts, so no name or count of payroll's fields. Runs on embedded chDB and, with
 * LOGSTEAD_TEST_EXECUTOR=clickhouse, on the ClickHouse server path (the fields are read from the
 * store); with LOGSTEAD_TEST_DATABASE=postgres the registry is in PostgreSQL.
 */

const hex = () => randomBytes(4).toString('hex');
let server: TestServer;
let owner: MemberSession;
let billingMember: MemberSession;
let unscopedMember: MemberSession;
let nothingMember: MemberSession;

const keyHeaders = () => ({ servicekey: server.org.serviceKey });
const get = (headers: Record<string, string>) => request(`${server.url}/v1/config/meta-fields`, { headers });

async function ingest(lines: object[]) {
  const reply = await request(`${server.url}/logs/ingest?hostname=h1`, {
    method: 'POST',
    headers: { apikey: server.org.ingestionKey, 'content-type': 'application/json' },
    body: JSON.stringify({ lines }),
  });
  assert.equal(reply.status, 200, reply.text);
  return reply.json;
}

async function group(access_scopes: string): Promise<string> {
  const reply = await request(`${server.url}/v1/config/groups`, {
    method: 'POST',
    headers: { ...keyHeaders(), 'content-type': 'application/json' },
    body: JSON.stringify({ name: `group ${hex()}`, access_scopes }),
  });
  assert.equal(reply.status, 200, reply.text);
  return reply.json.id;
}

before(async () => {
  server = await startTestServer();
  const now = Date.now();
  // Payroll first: its salary is a number, so billing's salary below is a type clash, kept as text.
  await ingest([
    { line: 'payroll run', app: 'payroll', timestamp: now - 5000, meta: { salary: 5000, employee: { ssn: '078-05-1120', name: { last: { initial: 'D' } } }, shared: 'p' } },
    { line: 'payroll audit', app: 'payroll', timestamp: now - 4000, meta: { payroll_only: [1, 2], nothing: null } },
  ]);
  await ingest([{ line: 'billing odd', app: 'billing', timestamp: now - 3500, meta: { salary: 'text', leaked_by_clash: true } }]);
  const odd = await request(`${server.url}/v1/export?from=0&to=${now + 60_000}&query=odd`, { headers: keyHeaders() });
  assert.match(odd.text, /"_metaUnindexed":"type-conflict"/, 'the clash kept that meta as text');
  await ingest([
    { line: 'invoice sent', app: 'billing', timestamp: now - 3000, meta: { invoice: { id: 7, total: 12.5 }, currency: 'EUR', shared: 'b' } },
    { line: 'invoice paid', app: 'billing-eu', timestamp: now - 2000, meta: { invoice: { id: 8 }, 'a\u0000b': 1, deep: { er: { than: { three: 1 } } } } },
    { line: 'no meta', app: 'billing', timestamp: now - 1000 },
  ]);
  owner = await server.signInAs(`owner.${hex()}@example.com`, 'owner');
  billingMember = await server.signInAs(`billing.${hex()}@example.com`, 'readonly', { groups: [await group('app:billing')] });
  unscopedMember = await server.signInAs(`unscoped.${hex()}@example.com`, 'member');
  nothingMember = await server.signInAs(`crm.${hex()}@example.com`, 'member', { groups: [await group('app:crm')] });
});
after(() => server?.close());

const PAYROLL_ONLY = ['salary', 'employee', 'ssn', 'payroll_only', 'nothing', 'leaked_by_clash'];

test('the owner and a member in no scoped group get the organisation registry, with the day\'s counts', async () => {
  const byKey = await get(keyHeaders());
  assert.equal(byKey.status, 200, byKey.text);
  const paths = byKey.json.fields.map((field: { path: string }) => field.path);
  assert.deepEqual(paths, ['a\ufffdb', 'currency', 'deep.er.than', 'employee.name.last', 'employee.ssn', 'invoice.id', 'invoice.total', 'payroll_only', 'salary', 'shared']);
  assert.equal(byKey.json.addedToday, 10);
  assert.equal(byKey.json.remainingToday, byKey.json.limitPerDay - 10);
  assert.ok(byKey.json.fields.every((field: { firstIndexed: string }) => field.firstIndexed === byKey.json.day));
  assert.deepEqual((await get(owner.headers())).json, byKey.json, "an owner member's answer is the key's");
  assert.deepEqual((await get(unscopedMember.headers())).json, byKey.json, "a member in no scoped group gets the same, exactly");
});

test('a scoped member gets only the fields that stored lines inside the scope carry, typed, with no day\'s counts', async () => {
  const reply = await get(billingMember.headers());
  assert.equal(reply.status, 200, reply.text);
  const day = (await get(keyHeaders())).json;
  assert.deepEqual(reply.json, {
    day: day.day,
    limitPerDay: day.limitPerDay,
    fields: [
      // billing-eu's lines are inside app:billing (a word match), as the scope lets them through.
      { path: 'a\ufffdb', type: 'number', firstIndexed: null },
      { path: 'currency', type: 'string', firstIndexed: null },
      { path: 'deep.er.than', type: 'object', firstIndexed: null },
      { path: 'invoice.id', type: 'number', firstIndexed: null },
      { path: 'invoice.total', type: 'number', firstIndexed: null },
      // Carried by lines of both apps: named, as billing's lines carry it.
      { path: 'shared', type: 'string', firstIndexed: null },
    ],
  });
  for (const name of PAYROLL_ONLY) assert.ok(!reply.text.includes(name), `no payroll-only name (${name}) in ${reply.text}`);
});

test('a member whose scope holds no line with meta gets no field', async () => {
  const reply = await get(nothingMember.headers());
  assert.equal(reply.status, 200, reply.text);
  assert.deepEqual(reply.json.fields, []);
  assert.equal(reply.json.addedToday, undefined);
});
