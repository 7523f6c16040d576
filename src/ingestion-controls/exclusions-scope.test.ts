import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { type MemberSession, type TestServer, callJson, eventually, request, startTestServer } from '../testing/harness.js';

/**
 * Exclusion rules and their counts (GET /v1/usage/excluded, /v1/config/ingestion/exclusions) for
 * a member scoped to `app:billing` (issue 39, point 6). Excluded lines are not stored, so their
 * counts cannot be cut down to a scope: a scoped reader sees only the rules whose filter is
 * provably inside their scope, each with the hours counted wholly under its present filter, and
 * totals that are the sums of those; the owner sees every rule and count as before. With
 * LOGSTEAD_TEST_DATABASE=postgres the rules and counts are in PostgreSQL.
 */

const HOUR = 3_600_000;
const hex = () => randomBytes(4).toString('hex');
/** The gate's clock: it counts each excluded line in the hour it arrives. */
let clock = Math.floor(Date.now() / HOUR) * HOUR + 60_000;
let server: TestServer;
let reader: MemberSession;
let scopedAdmin: MemberSession;
const rules: Record<string, { id: string; title: string }> = {};

const keyHeaders = () => ({ servicekey: server.org.serviceKey });
const call = (method: string, path: string, headers: Record<string, string>, body?: unknown) => callJson(server.url, method, path, headers, body);

async function ingest(app: string, lines: string[]) {
  const reply = await request(`${server.url}/logs/ingest?hostname=h1`, {
    method: 'POST',
    headers: { apikey: server.org.ingestionKey, 'content-type': 'application/json' },
    body: JSON.stringify({ lines: lines.map((line) => ({ line, app })) }),
  });
  assert.equal(reply.status, 200, reply.text);
}

/** The owner's answer once the gate has added `lines` excluded lines in all (it adds them every 500 ms). */
const excludedOnceCounted = (lines: number) =>
  eventually(async () => {
    const reply = await call('GET', '/v1/usage/excluded', keyHeaders());
    return reply.json.lines >= lines ? reply : undefined;
  }, 10_000, `${lines} excluded lines counted`);

const bytes = (lines: string[]) => lines.reduce((sum, line) => sum + Buffer.byteLength(line), 0);
const BILLING_DEBUG = ['billing debug one', 'billing debug two'];
const BILLING_NOISE = ['billing noise'];
const PAYROLL = ['payroll secret one', 'payroll secret two', 'payroll secret three'];
const HEALTH = ['GET /healthz 200'];

before(async () => {
  server = await startTestServer({}, { now: () => clock });
  const group = await call('POST', '/v1/config/groups', keyHeaders(), { name: `billing ${hex()}`, access_scopes: 'app:billing' });
  assert.equal(group.status, 200, group.text);
  reader = await server.signInAs(`reader.${hex()}@example.com`, 'readonly', { groups: [group.json.id] });
  scopedAdmin = await server.signInAs(`admin.${hex()}@example.com`, 'admin', { groups: [group.json.id] });
  const make = async (name: string, rule: Record<string, unknown>) => {
    const created = await call('POST', '/v1/config/ingestion/exclusions', keyHeaders(), { active: true, ...rule });
    assert.equal(created.status, 200, created.text);
    rules[name] = created.json;
  };
  await make('billingDebug', { title: 'billing debug', apps: ['billing'], query: 'debug', indexonly: false });
  await make('payroll', { title: 'payroll secrets', apps: ['payroll'] });
  await make('health', { title: 'health checks', query: 'healthz' });
  await make('billingByQuery', { title: 'billing noise by query', query: 'noise app:billing' });
  await make('billingOff', { title: 'billing, off', apps: ['billing'], active: false });
  await ingest('billing', BILLING_DEBUG);
  await ingest('payroll', PAYROLL);
  await ingest('billing', HEALTH);
  await ingest('billing', BILLING_NOISE);
  await excludedOnceCounted(7);
});
after(() => server?.close());

test('the owner sees every rule and every count', async () => {
  const usage = await call('GET', '/v1/usage/excluded', keyHeaders());
  assert.equal(usage.json.lines, 7);
  assert.equal(usage.json.bytes, bytes([...BILLING_DEBUG, ...PAYROLL, ...HEALTH, ...BILLING_NOISE]));
  const counts = Object.fromEntries(usage.json.rules.map((rule: { title: string; lines: number }) => [rule.title, rule.lines]));
  assert.deepEqual(counts, { 'billing debug': 2, 'payroll secrets': 3, 'health checks': 1, 'billing noise by query': 1, 'billing, off': 0 });
  assert.equal((await call('GET', '/v1/config/ingestion/exclusions', keyHeaders())).json.length, 5);
  assert.equal((await call('GET', `/v1/config/ingestion/exclusions/${rules.payroll.id}`, keyHeaders())).status, 200);
});

test('a scoped member sees only the rules inside their scope, with totals that are their sums', async () => {
  const usage = await call('GET', '/v1/usage/excluded', reader.headers());
  assert.equal(usage.status, 200, usage.text);
  assert.deepEqual(
    usage.json.rules,
    [
      { id: rules.billingDebug.id, title: 'billing debug', active: true, lines: 2, bytes: bytes(BILLING_DEBUG) },
      { id: rules.billingByQuery.id, title: 'billing noise by query', active: true, lines: 1, bytes: bytes(BILLING_NOISE) },
      { id: rules.billingOff.id, title: 'billing, off', active: false, lines: 0, bytes: 0 },
    ],
  );
  assert.equal(usage.json.lines, 3);
  assert.equal(usage.json.bytes, bytes([...BILLING_DEBUG, ...BILLING_NOISE]));
  // The health rule names no app: it could have excluded payroll's lines, so it is not shown either.
  for (const word of ['payroll', 'health']) assert.ok(!usage.text.includes(word), `nothing of ${word} in ${usage.text}`);

  const listed = await call('GET', '/v1/config/ingestion/exclusions', reader.headers());
  assert.deepEqual(listed.json.map((rule: { id: string }) => rule.id), [rules.billingDebug.id, rules.billingByQuery.id, rules.billingOff.id]);
  assert.ok(!listed.text.includes('payroll'));
  for (const hidden of [rules.payroll, rules.health]) {
    const one = await call('GET', `/v1/config/ingestion/exclusions/${hidden.id}`, reader.headers());
    assert.equal(one.status, 404, 'a rule not seen into is as a rule that does not exist');
    assert.ok(!one.text.includes(hidden.title));
  }
});

test('a scoped admin cannot change or delete a rule they cannot see into, and can one they can', async () => {
  for (const [method, body] of [['PATCH', { title: 'mine now' }], ['DELETE', undefined]] as const) {
    const reply = await call(method, `/v1/config/ingestion/exclusions/${rules.payroll.id}`, scopedAdmin.headers(true), body);
    assert.equal(reply.status, 404, `${method}: ${reply.text}`);
    assert.ok(!reply.text.includes('payroll'));
  }
  assert.equal((await call('GET', `/v1/config/ingestion/exclusions/${rules.payroll.id}`, keyHeaders())).json.title, 'payroll secrets', 'unchanged');
  const renamed = await call('PATCH', `/v1/config/ingestion/exclusions/${rules.billingOff.id}`, scopedAdmin.headers(true), { title: 'billing, still off' });
  assert.equal(renamed.status, 200, renamed.text);
  assert.equal(renamed.json.title, 'billing, still off');
});

test("a rule's counts from before a change of its filter are not shown to a scoped member", async () => {
  // The owner points the payroll rule at billing: it is now inside the scope, but its counts so far are payroll's.
  const patched = await call('PATCH', `/v1/config/ingestion/exclusions/${rules.payroll.id}`, keyHeaders(), { title: 'billing rest', apps: ['billing'] });
  assert.equal(patched.status, 200, patched.text);
  const shown = async () => (await call('GET', '/v1/usage/excluded', reader.headers())).json;
  let usage = await shown();
  assert.deepEqual(usage.rules.find((rule: { id: string }) => rule.id === rules.payroll.id), { id: rules.payroll.id, title: 'billing rest', active: true, lines: 0, bytes: 0 });
  assert.equal(usage.lines, 3, 'the totals leave the payroll lines out');

  // This hour now mixes the old filter's lines with the new one's: still not shown.
  await ingest('billing', ['billing rest one']);
  await excludedOnceCounted(8);
  usage = await shown();
  assert.equal(usage.rules.find((rule: { id: string }) => rule.id === rules.payroll.id).lines, 0);
  assert.equal(usage.lines, 3);

  // The next hour is counted under the new filter alone: shown.
  clock += HOUR;
  const later = ['billing rest two', 'billing rest three'];
  await ingest('billing', later);
  await excludedOnceCounted(10);
  usage = await shown();
  assert.deepEqual(usage.rules.find((rule: { id: string }) => rule.id === rules.payroll.id), { id: rules.payroll.id, title: 'billing rest', active: true, lines: 2, bytes: bytes(later) });
  assert.equal(usage.lines, 5);
  assert.equal(usage.bytes, bytes([...BILLING_DEBUG, ...BILLING_NOISE, ...later]));

  // The owner's counts of the rule are all of them, whatever its filter was.
  const all = await call('GET', '/v1/usage/excluded', keyHeaders());
  assert.equal(all.json.rules.find((rule: { id: string }) => rule.id === rules.payroll.id).lines, 6);
  assert.equal(all.json.lines, 10);

  // A change of title only keeps the filter, and its counts stay shown.
  await call('PATCH', `/v1/config/ingestion/exclusions/${rules.payroll.id}`, keyHeaders(), { title: 'billing rest, renamed' });
  assert.equal((await shown()).rules.find((rule: { id: string }) => rule.id === rules.payroll.id).lines, 2);
});
