import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { NewAccount } from '../accounts/accounts.js';
import { type MemberSession, type Reply, type TestServer, jsonLines, request, startTestServer } from '../testing/harness.js';

/**
 * Who may change what people see, and what a group lets through (issue 39, points 4 and 7): only
 * an owner changes an owner's groups or a group an owner is in; the organisation keeps an owner in
 * no scoped group; a change that lets members see every line is refused (409, naming them) unless
 * asked for with ?widen=true; and a group's exact `apps` and `hosts` lists admit those names only,
 * where `app:checkout` also admits `checkout-secrets`. Runs on either configuration database.
 */

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server?.close());

type Caller = MemberSession | NewAccount;
function headersOf(caller: Caller, write: boolean): Record<string, string> {
  return 'serviceKey' in caller ? { servicekey: caller.serviceKey } : caller.headers(write);
}
async function call(caller: Caller, method: string, path: string, body?: unknown): Promise<Reply> {
  const headers = { ...headersOf(caller, method !== 'GET'), ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
  return request(`${server.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}
const member = (email: string) => `/v1/config/members/${encodeURIComponent(email)}`;
const group = (id: string) => `/v1/config/groups/${id}`;
async function newGroup(org: NewAccount, body: Record<string, unknown>): Promise<{ id: string; admits: { apps: string[]; hosts: string[] } }> {
  const reply = await call(org, 'POST', '/v1/config/groups', body);
  assert.equal(reply.status, 200, reply.text);
  return reply.json;
}
const groupsOf = async (org: NewAccount, email: string): Promise<string[]> => (await call(org, 'GET', member(email))).json.groups;
const scopedSession = async (session: MemberSession) => (await request(`${server.url}/api/session`, { headers: session.headers() })).json.scoped;

async function ingest(org: NewAccount, hostname: string, lines: Array<Record<string, unknown>>): Promise<void> {
  const reply = await request(`${server.url}/logs/ingest?hostname=${hostname}`, {
    method: 'POST',
    headers: { apikey: org.ingestionKey, 'content-type': 'application/json' },
    body: JSON.stringify({ lines }),
  });
  assert.equal(reply.status, 200, reply.text);
}

describe('owners are changed only by owners', () => {
  test("an admin may not change an owner's groups, nor the scope of a group an owner is in, nor delete it; an owner may", async () => {
    const org = await server.createOrg('owner rules');
    const first = await server.signInAs('first@owners.test', 'owner', { account: org.account });
    await server.signInAs('second@owners.test', 'owner', { account: org.account });
    const admin = await server.signInAs('admin@owners.test', 'admin', { account: org.account });
    const billing = await newGroup(org, { name: 'billing', access_scopes: 'app:billing' });

    const scoping = await call(admin, 'PUT', member('second@owners.test'), { groups: [billing.id] });
    assert.equal(scoping.status, 403, scoping.text);
    assert.match(scoping.json.error, /your role \(admin\) may not do this; it needs the owner role/);
    assert.deepEqual(await groupsOf(org, 'second@owners.test'), [], 'nothing changed');
    assert.equal((await call(admin, 'PUT', `${member('second@owners.test')}?widen=true`, { groups: [billing.id] })).status, 403, 'nor with ?widen=true');
    const echoed = await call(admin, 'PUT', member('second@owners.test'), { role: 'owner', groups: [] });
    assert.equal(echoed.status, 200, `the owner sent back as read changes nothing: ${echoed.text}`);

    assert.equal((await call(first, 'PUT', member('second@owners.test'), { groups: [billing.id] })).status, 200, 'an owner may');
    assert.deepEqual(await groupsOf(org, 'second@owners.test'), [billing.id]);

    // Billing now has an owner in it: its scope is the owners' to change.
    assert.equal((await call(admin, 'PATCH', group(billing.id), { name: 'billing team' })).status, 200, 'a rename changes nobody’s access');
    for (const [method, body] of [
      ['PATCH', { access_scopes: 'app:payroll' }],
      ['PATCH', { hosts: ['pay-1'] }],
      ['PUT', { name: 'billing team', access_scopes: 'app:billing', apps: ['billing'] }],
    ] as const) {
      const refused = await call(admin, method, group(billing.id), body);
      assert.equal(refused.status, 403, `${method} ${JSON.stringify(body)}: ${refused.text}`);
      assert.match(refused.json.error, /your role \(admin\).*owner role/);
    }
    assert.equal((await call(admin, 'DELETE', `${group(billing.id)}?widen=true`)).status, 403);
    const kept = (await call(org, 'GET', group(billing.id))).json;
    assert.deepEqual([kept.access_scopes, kept.apps, kept.hosts], ['app:billing', [], []], 'the group is as it was');

    const byOwner = await call(first, 'PATCH', group(billing.id), { apps: ['billing'] });
    assert.equal(byOwner.status, 200, byOwner.text);
    assert.deepEqual(byOwner.json.apps, ['billing']);
    // Out of the group, the owner's groups are an admin's to change no more than before; the group is.
    assert.equal((await call(first, 'PUT', `${member('second@owners.test')}?widen=true`, { groups: [] })).status, 200);
    assert.equal((await call(admin, 'PATCH', group(billing.id), { access_scopes: 'app:payroll' })).status, 200);
  });
});

describe('the last owner in no scoped group stays unscoped', () => {
  test("neither their groups nor a group's new scope may scope them, nor may the last unscoped owner go; a refused change changes nothing", async () => {
    const org = await server.createOrg('last unscoped owner');
    await server.signInAs('only@last.test', 'owner', { account: org.account });
    const scoped = await newGroup(org, { name: 'scoped', access_scopes: 'app:a' });
    const open = await newGroup(org, { name: 'open' });

    const refused = await call(org, 'PUT', member('only@last.test'), { groups: [scoped.id] });
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.json.code, 'Conflict');
    assert.match(refused.json.error, /no owner in no scoped group \(only@last\.test/);
    assert.deepEqual(await groupsOf(org, 'only@last.test'), []);

    assert.equal((await call(org, 'PUT', member('only@last.test'), { groups: [open.id] })).status, 200, 'a group without a scope limits nothing');
    for (const [method, body] of [
      ['PATCH', { access_scopes: 'app:a' }],
      ['PATCH', { apps: ['a'] }],
      ['PUT', { name: 'open', hosts: ['h'] }],
    ] as const) {
      const scoping = await call(org, method, `${group(open.id)}?widen=true`, body);
      assert.equal(scoping.status, 409, `${method} ${JSON.stringify(body)}: ${scoping.text}`);
    }
    const kept = (await call(org, 'GET', group(open.id))).json;
    assert.deepEqual([kept.access_scopes, kept.apps, kept.hosts], ['', [], []]);

    // With a second owner in no scoped group, the first may be scoped; then the second is the last.
    await server.signInAs('second@last.test', 'owner', { account: org.account });
    assert.equal((await call(org, 'PUT', member('only@last.test'), { groups: [scoped.id] })).status, 200);
    assert.equal((await call(org, 'PUT', member('second@last.test'), { groups: [scoped.id] })).status, 409);
    const removed = await call(org, 'DELETE', member('second@last.test'));
    assert.equal(removed.status, 409, `the last unscoped owner stays: ${removed.text}`);
  });

  test('two owners scoped at once: exactly one of the two changes is made', async () => {
    const org = await server.createOrg('owners at once');
    const scoped = await newGroup(org, { name: 'scoped', access_scopes: 'app:a' });
    for (const email of ['one@race.test', 'two@race.test']) await server.signInAs(email, 'owner', { account: org.account });
    for (let round = 0; round < 5; round++) {
      const replies = await Promise.all(['one@race.test', 'two@race.test'].map((email) => call(org, 'PUT', member(email), { groups: [scoped.id] })));
      assert.deepEqual(replies.map((reply) => reply.status).sort(), [200, 409], `round ${round}: ${replies.map((reply) => reply.text).join(' | ')}`);
      const scopedOwners = (await Promise.all(['one@race.test', 'two@race.test'].map((email) => groupsOf(org, email)))).filter((ids) => ids.length > 0);
      assert.equal(scopedOwners.length, 1, 'one owner still sees every line');
      for (const email of ['one@race.test', 'two@race.test']) assert.equal((await call(org, 'PUT', `${member(email)}?widen=true`, { groups: [] })).status, 200);
    }
  });
});

describe('access never widens silently', () => {
  test('deleting a group, leaving the last scoped group, or a scope removed answers 409 naming the members, unless ?widen=true', async () => {
    const org = await server.createOrg('widening');
    await server.signInAs('owner@widen.test', 'owner', { account: org.account });
    const a = await newGroup(org, { name: 'a', access_scopes: 'app:a' });
    const b = await newGroup(org, { name: 'b', access_scopes: ['app:b', 'host:b'] });
    const onlyA = await server.signInAs('only-a@widen.test', 'member', { account: org.account, groups: [a.id] });
    await server.signInAs('both@widen.test', 'member', { account: org.account, groups: [a.id, b.id] });
    await server.signInAs('only-b@widen.test', 'readonly', { account: org.account, groups: [b.id] });

    const deleting = await call(org, 'DELETE', group(a.id));
    assert.equal(deleting.status, 409, deleting.text);
    assert.deepEqual(deleting.json.members, ['only-a@widen.test'], 'both@ stays scoped by b');
    assert.equal(deleting.json.code, 'Conflict');
    assert.equal(deleting.json.status, 'error');
    assert.match(deleting.json.error, /let a member see every line .*only-a@widen\.test.*\?widen=true/);
    assert.equal((await call(org, 'DELETE', `${group(a.id)}?widen=false`)).status, 409);
    assert.equal((await call(org, 'DELETE', `${group(a.id)}?widen=yes`)).status, 400, 'widen is true or false');
    assert.equal((await call(org, 'GET', group(a.id))).status, 200, 'the group is still there');

    const leaving = await call(org, 'PUT', member('only-b@widen.test'), { groups: [] });
    assert.equal(leaving.status, 409, leaving.text);
    assert.deepEqual(leaving.json.members, ['only-b@widen.test']);
    assert.deepEqual(await groupsOf(org, 'only-b@widen.test'), [b.id]);

    // A scope removed entirely widens; one that keeps an exact list does not.
    for (const [method, body] of [
      ['PATCH', { access_scopes: '' }],
      ['PUT', { name: 'a' }],
    ] as const) {
      const removing = await call(org, method, group(a.id), body);
      assert.equal(removing.status, 409, `${method}: ${removing.text}`);
      assert.deepEqual(removing.json.members, ['only-a@widen.test']);
    }
    assert.equal((await call(org, 'PATCH', group(a.id), { access_scopes: '', apps: ['a'] })).status, 200);
    assert.equal(await scopedSession(onlyA), true);

    assert.equal((await call(org, 'PUT', `${member('only-b@widen.test')}?widen=true`, { groups: [] })).status, 200);
    assert.deepEqual(await groupsOf(org, 'only-b@widen.test'), []);
    const widened = await call(org, 'DELETE', `${group(a.id)}?widen=true`);
    assert.equal(widened.status, 200, widened.text);
    assert.equal(await scopedSession(onlyA), false, 'asked for: the member sees every line');
    const unscoped = await call(org, 'PUT', `${group(b.id)}?widen=true`, { name: 'b' });
    assert.equal(unscoped.status, 200, unscoped.text);
    assert.deepEqual(unscoped.json.access_scopes, '', 'PUT replaces the whole group');
  });
});

describe("a group's exact lists, and what it admits", () => {
  let org: NewAccount;
  const nowS = () => Math.floor(Date.now() / 1000);
  before(async () => {
    org = await server.createOrg('exact lists');
    await server.signInAs('owner@lists.test', 'owner', { account: org.account });
    const now = Date.now();
    const at = (i: number) => now - 600_000 + i * 1000;
    await ingest(org, 'pay-1', [0, 1, 2].map((i) => ({ line: `order ${i} paid`, app: 'checkout', timestamp: at(i) })));
    await ingest(org, 'pay-10', [3, 4].map((i) => ({ line: `card number ${i} secrets`, app: 'checkout-secrets', timestamp: at(i) })));
    await ingest(org, 'pay-1', [{ line: 'salary paid', app: 'checkoutpayroll', timestamp: at(5) }]);
    await ingest(org, 'web-1', [{ line: 'GET /', app: 'web', timestamp: at(6) }]);
    // Older than a day: in no `admits`.
    await ingest(org, 'pay-1', [{ line: 'old order', app: 'checkout-archive', timestamp: now - 2 * 86_400_000 }]);
  });

  async function readsOf(session: MemberSession, query = ''): Promise<string[]> {
    const from = nowS() - 3 * 86_400;
    const v1 = await request(`${server.url}/v1/export?from=${from}&to=${nowS() + 60}&query=${encodeURIComponent(query)}`, { headers: session.headers() });
    assert.equal(v1.status, 200, v1.text);
    const v2 = await request(`${server.url}/v2/export?from=${from}&to=${nowS() + 60}&size=1000&query=${encodeURIComponent(query)}`, { headers: session.headers() });
    assert.equal(v2.status, 200, v2.text);
    const apps = jsonLines(v1.text).map((line) => `${line._app}@${line._host}`);
    assert.deepEqual(v2.json.lines.map((line: { _app: string; _host: string }) => `${line._app}@${line._host}`).sort(), [...apps].sort(), 'search pages read the same lines as export');
    return [...new Set(apps)].sort();
  }

  test("a member of a group with apps [checkout] reads no checkout-secrets line, which app:checkout lets through", async () => {
    const wordy = await newGroup(org, { name: 'word match', access_scopes: 'app:checkout' });
    assert.deepEqual(wordy.admits, { apps: ['checkout', 'checkout-secrets', 'checkoutpayroll'], hosts: ['pay-1', 'pay-10'] }, 'most lines first');
    const exact = await newGroup(org, { name: 'exact', apps: ['checkout'] });
    assert.deepEqual(exact.admits, { apps: ['checkout'], hosts: ['pay-1'] });

    const word = await server.signInAs('word@lists.test', 'readonly', { account: org.account, groups: [wordy.id] });
    assert.deepEqual(await readsOf(word), ['checkout-archive@pay-1', 'checkout-secrets@pay-10', 'checkout@pay-1', 'checkoutpayroll@pay-1']);
    const listed = await server.signInAs('listed@lists.test', 'readonly', { account: org.account, groups: [exact.id] });
    assert.deepEqual(await readsOf(listed), ['checkout@pay-1']);
    for (const query of ['secrets', 'app:checkout-secrets', 'app:==checkout-secrets', 'salary OR secrets']) assert.deepEqual(await readsOf(listed, query), [], query);

    // A search and lists together: the search within the lists.
    const both = await newGroup(org, { name: 'search in lists', access_scopes: ['paid', 'secrets'], apps: ['checkout', 'checkoutpayroll'], hosts: ['pay-1'] });
    assert.deepEqual(both.admits, { apps: ['checkout', 'checkoutpayroll'], hosts: ['pay-1'] });
    const mixed = await server.signInAs('mixed@lists.test', 'readonly', { account: org.account, groups: [both.id] });
    assert.deepEqual(await readsOf(mixed), ['checkout@pay-1', 'checkoutpayroll@pay-1']);
    // Groups add up: another group's lines come in besides.
    const web = await newGroup(org, { name: 'web', hosts: ['web-1'] });
    assert.equal((await call(org, 'PUT', member('mixed@lists.test'), { groups: [both.id, web.id] })).status, 200);
    assert.deepEqual(await readsOf(mixed), ['checkout@pay-1', 'checkoutpayroll@pay-1', 'web@web-1']);
  });

  test("POST, PUT and PATCH answer what the group admits, as the person who saves it may see; GET answers its lists", async () => {
    const created = await newGroup(org, { name: 'admits', access_scopes: 'host:pay-1' });
    assert.deepEqual(created.admits.hosts, ['pay-1', 'pay-10'], 'a word match: pay-1 also admits pay-10');
    const put = await call(org, 'PUT', group(created.id), { name: 'admits', hosts: ['pay-1'] });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.json.admits, { apps: ['checkout', 'checkoutpayroll'], hosts: ['pay-1'] });
    assert.deepEqual([put.json.access_scopes, put.json.apps, put.json.hosts], ['', [], ['pay-1']]);
    const patched = await call(org, 'PATCH', group(created.id), { apps: ['checkout-secrets', 'nowhere'], hosts: [] });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.json.admits, { apps: ['checkout-secrets'], hosts: ['pay-10'] });
    const read = await call(org, 'GET', group(created.id));
    assert.deepEqual([read.json.apps, read.json.hosts, read.json.admits], [['checkout-secrets', 'nowhere'], [], undefined]);
    assert.ok((await call(org, 'GET', '/v1/config/groups')).json.every((found: { apps: unknown; hosts: unknown }) => Array.isArray(found.apps) && Array.isArray(found.hosts)));

    // A scoped admin learns no name outside their own scope.
    const exact = await newGroup(org, { name: 'checkout only', apps: ['checkout'] });
    const admin = await server.signInAs('admin@lists.test', 'admin', { account: org.account, groups: [exact.id] });
    const theirs = await call(admin, 'POST', '/v1/config/groups', { name: 'everything' });
    assert.equal(theirs.status, 200, theirs.text);
    assert.deepEqual(theirs.json.admits, { apps: ['checkout'], hosts: ['pay-1'] });
  });

  test('admits names at most 100 apps and 100 hosts, most lines first, then by name', async () => {
    const many = await server.createOrg('many apps');
    const now = Date.now();
    const lines = Array.from({ length: 105 }, (_, i) => ({ line: `line ${i}`, app: `bulk-${String(i).padStart(3, '0')}`, timestamp: now - 60_000 }));
    await ingest(many, 'bulk-host', [...lines, { line: 'again', app: 'bulk-104', timestamp: now - 60_000 }]);
    const admits = (await newGroup(many, { name: 'bulk', hosts: ['bulk-host'] })).admits;
    assert.equal(admits.apps.length, 100);
    assert.deepEqual(admits.apps.slice(0, 3), ['bulk-104', 'bulk-000', 'bulk-001'], 'the app with most lines first, then by name');
    assert.deepEqual(admits.hosts, ['bulk-host']);
  });

  test('lists are validated: at most 1000 names, each of 1 to 512 characters; repeats are kept once', async () => {
    for (const [body, key] of [
      [{ name: 'x', apps: [''] }, 'apps'],
      [{ name: 'x', hosts: ['h'.repeat(513)] }, 'hosts'],
      [{ name: 'x', apps: Array.from({ length: 1001 }, (_, i) => `a${i}`) }, 'apps'],
      [{ name: 'x', apps: 'checkout' }, 'apps'],
    ] as const) {
      const refused = await call(org, 'POST', '/v1/config/groups', body);
      assert.equal(refused.status, 400, refused.text);
      assert.match(refused.json.details[0].key, new RegExp(`^${key}`));
    }
    const kept = await newGroup(org, { name: 'repeats', apps: ['checkout', 'checkout', 'h'.repeat(512)], hosts: Array.from({ length: 1000 }, (_, i) => `h${i}`) });
    const read = (await call(org, 'GET', group(kept.id))).json;
    assert.deepEqual(read.apps, ['checkout', 'h'.repeat(512)]);
    assert.equal(read.hosts.length, 1000);
  });
});
