import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { NewAccount } from '../accounts/accounts.js';
import { type MemberSession, type Reply, type TestServer, request, startTestServer } from '../testing/harness.js';
import { MASK } from './audit-trail.js';

/**
 * The audit trail: every configuration change (views, preset alerts, categories, keys, members,
 * groups, retention) is recorded with who made it (a member's e-mail, or a key's name and id),
 * from where, what, and the values before and after with secrets masked; sign-ins and failed
 * sign-ins too. GET /v1/config/audit filters and pages it, for admins, one organisation at a time.
 */

interface AuditRecord {
  at: number;
  actor: string;
  address: string;
  action: string;
  resource: string;
  id: string;
  before: any;
  after: any;
}

let server: TestServer;
let admin: MemberSession;
let writer: MemberSession;
let readonly: MemberSession;
/** A service key made for automation, whose name and id the trail must give. */
let terraform: { id: string; key: string; name: string };
let terraformActor: string;
/** Values that must never reach the trail in clear. */
const SECRETS = { hookToken: 'hook-secret-token-1', hookAuth: 'Bearer hook-secret-2', routingKey: 'pd-secret-routing-key', wrongPassword: 'a wrong guess at it' };
let createdKey: string;
let started: number;
let finished: number;
/** The time between the first half of the changes and the second, for from/to. */
let midway: number;
const ids: Record<string, string> = {};

const body = (value: unknown): Record<string, string> => (value === undefined ? {} : { 'content-type': 'application/json' });
async function withKey(key: string, method: string, path: string, value?: unknown): Promise<Reply> {
  return request(`${server.url}${path}`, { method, headers: { servicekey: key, ...body(value) }, body: value === undefined ? undefined : JSON.stringify(value) });
}
async function as(person: MemberSession, method: string, path: string, value?: unknown): Promise<Reply> {
  return request(`${server.url}${path}`, { method, headers: { ...person.headers(method !== 'GET'), ...body(value) }, body: value === undefined ? undefined : JSON.stringify(value) });
}
const ok = (reply: Reply, what: string) => {
  assert.equal(reply.status, 200, `${what}: ${reply.text}`);
  return reply.json;
};
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

/** Every record of the first organisation, newest first, read page by page. */
async function trail(query = '', key = server.org.serviceKey): Promise<AuditRecord[]> {
  const records: AuditRecord[] = [];
  let next: string | null = null;
  do {
    const reply = await withKey(key, 'GET', `/v1/config/audit?limit=50${query}${next ? `&next=${next}` : ''}`);
    assert.equal(reply.status, 200, reply.text);
    records.push(...reply.json.records);
    next = reply.json.next;
  } while (next !== null);
  return records;
}

const webhook = { integration: 'webhook', url: 'https://hooks.example.com/x', method: 'post', headers: { 'x-token': SECRETS.hookToken, authorization: SECRETS.hookAuth }, bodyTemplate: { text: '{{ matches }}' }, triggerlimit: 1, triggerinterval: '5m', immediate: true };
const pagerduty = { integration: 'pagerduty', key: SECRETS.routingKey, triggerlimit: 10, triggerinterval: '15m', operator: 'absence', immediate: false, terminal: true };

before(async () => {
  server = await startTestServer();
  started = Date.now();
  admin = await server.signInAs('audit.admin@example.com', 'admin');
  writer = await server.signInAs('audit.writer@example.com', 'member');
  readonly = await server.signInAs('audit.reader@example.com', 'readonly');
  terraform = ok(await withKey(server.org.serviceKey, 'POST', '/v1/config/keys?type=service', { name: 'terraform' }), 'a key for automation');
  terraformActor = `key "terraform" (${terraform.id})`;

  // Views, by a member with a session.
  ids.view = ok(await as(writer, 'POST', '/v1/config/view', { name: 'audited view', query: 'level:error', channels: [webhook] }), 'view').viewid;
  ok(await as(writer, 'PUT', `/v1/config/view/${ids.view}`, { name: 'audited view 2', query: 'level:warn', channels: [webhook] }), 'view update');
  ok(await as(writer, 'DELETE', `/v1/config/view/${ids.view}`), 'view delete');
  // Refused and invalid changes are not changes.
  assert.equal((await as(readonly, 'POST', '/v1/config/view', { name: 'refused view', query: 'x' })).status, 403);
  assert.equal((await as(writer, 'POST', '/v1/config/view', { name: 'invalid view', query: 'level:(' })).status, 400);

  // Preset alerts, by the automation key.
  ids.preset = ok(await withKey(terraform.key, 'POST', '/v1/config/presetalert', { name: 'audited preset', channels: [pagerduty] }), 'preset').presetid;
  ok(await withKey(terraform.key, 'PUT', `/v1/config/presetalert/${ids.preset}`, { name: 'audited preset 2', channels: [pagerduty, webhook] }), 'preset update');
  ok(await withKey(terraform.key, 'DELETE', `/v1/config/presetalert/${ids.preset}`), 'preset delete');

  // Categories.
  ids.category = ok(await as(writer, 'POST', '/v1/config/categories/views', { name: 'audited category' }), 'category').id;
  ok(await as(writer, 'PUT', `/v1/config/categories/views/${ids.category}`, { name: 'audited category 2' }), 'category update');
  ok(await as(writer, 'DELETE', `/v1/config/categories/views/${ids.category}`), 'category delete');
  await tick();
  midway = Date.now();
  await tick();

  // Keys, members, groups and retention, by an admin.
  const key = ok(await as(admin, 'POST', '/v1/config/keys?type=ingestion', { name: 'audited key' }), 'key');
  ids.key = key.id;
  createdKey = key.key;
  ok(await as(admin, 'PUT', `/v1/config/keys/${ids.key}`, { name: 'audited key 2' }), 'key update');
  ok(await as(admin, 'DELETE', `/v1/config/keys/${ids.key}`), 'key delete');
  ids.group = ok(await as(admin, 'POST', '/v1/config/groups', { name: 'audited group', access_scopes: 'app:audited' }), 'group').id;
  ok(await as(admin, 'PATCH', `/v1/config/groups/${ids.group}`, { access_scopes: 'app:audited2' }), 'group update');
  ok(await as(admin, 'POST', '/v1/config/members', { email: 'Audited.Member@example.com', role: 'readonly', groups: [ids.group] }), 'member');
  ok(await as(admin, 'PUT', '/v1/config/members/audited.member@example.com', { role: 'member' }), 'member update');
  ok(await as(admin, 'DELETE', '/v1/config/members/audited.member@example.com'), 'member delete');
  ok(await as(admin, 'DELETE', `/v1/config/groups/${ids.group}`), 'group delete');
  ok(await as(admin, 'PUT', '/v1/config/retention', { days: 12 }), 'retention');

  // Sign-ins, right and wrong.
  const signIn = (password: string) => request(`${server.url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: writer.email, password }) });
  assert.equal((await signIn(writer.password)).status, 200);
  assert.equal((await signIn(SECRETS.wrongPassword)).status, 401);
  finished = Date.now();
});
after(() => server?.close());

/** The one record of this action on this id. */
function one(records: AuditRecord[], action: string, id: string): AuditRecord {
  const found = records.filter((record) => record.action === action && record.id === id);
  assert.equal(found.length, 1, `one ${action} of ${id}: ${JSON.stringify(records.map((record) => [record.action, record.id]))}`);
  return found[0];
}

describe('what is recorded', () => {
  test('views: who, from where, when, the action and the values before and after', async () => {
    const records = await trail();
    const created = one(records, 'view.create', ids.view);
    assert.equal(created.actor, writer.email);
    assert.equal(created.resource, 'view');
    assert.match(created.address, /^(::ffff:)?127\.0\.0\.1$/);
    assert.ok(created.at >= started && created.at <= finished, 'at: when it happened, in ms');
    assert.equal(created.before, null);
    assert.equal(created.after.name, 'audited view');
    assert.equal(created.after.query, 'level:error');
    const updated = one(records, 'view.update', ids.view);
    assert.deepEqual([updated.before.name, updated.after.name], ['audited view', 'audited view 2']);
    assert.deepEqual([updated.before.query, updated.after.query], ['level:error', 'level:warn']);
    const deleted = one(records, 'view.delete', ids.view);
    assert.deepEqual([deleted.before.name, deleted.after], ['audited view 2', null]);
    assert.equal(records.filter((record) => record.resource === 'view').length, 3, 'the refused and the invalid view are not changes');
  });

  test('preset alerts by a key: the key is named, with its id', async () => {
    const records = await trail();
    for (const action of ['presetalert.create', 'presetalert.update', 'presetalert.delete']) {
      const record = one(records, action, ids.preset);
      assert.equal(record.actor, terraformActor, action);
      assert.equal(record.resource, 'presetalert');
    }
    const updated = one(records, 'presetalert.update', ids.preset);
    assert.deepEqual([updated.before.name, updated.after.name], ['audited preset', 'audited preset 2']);
    assert.equal(updated.before.channels.length, 1);
    assert.equal(updated.after.channels.length, 2);
  });

  test('categories, keys, groups, members and retention', async () => {
    const records = await trail();
    const expect: Array<[string, string, string, (record: AuditRecord) => void]> = [
      ['category.create', ids.category, writer.email, (record) => assert.equal(record.after.name, 'audited category')],
      ['category.update', ids.category, writer.email, (record) => assert.deepEqual([record.before.name, record.after.name], ['audited category', 'audited category 2'])],
      ['category.delete', ids.category, writer.email, (record) => assert.equal(record.before.name, 'audited category 2')],
      ['key.create', ids.key, admin.email, (record) => assert.deepEqual([record.after.name, record.after.type], ['audited key', 'ingestion'])],
      ['key.update', ids.key, admin.email, (record) => assert.deepEqual([record.before.name, record.after.name], ['audited key', 'audited key 2'])],
      ['key.delete', ids.key, admin.email, (record) => assert.equal(record.before.name, 'audited key 2')],
      ['group.create', ids.group, admin.email, (record) => assert.equal(record.after.access_scopes, 'app:audited')],
      ['group.update', ids.group, admin.email, (record) => assert.deepEqual([record.before.access_scopes, record.after.access_scopes], ['app:audited', 'app:audited2'])],
      ['group.delete', ids.group, admin.email, (record) => assert.equal(record.before.name, 'audited group')],
      ['member.create', 'audited.member@example.com', admin.email, (record) => assert.deepEqual([record.after.role, record.after.groups], ['readonly', [ids.group]])],
      ['member.update', 'audited.member@example.com', admin.email, (record) => assert.deepEqual([record.before.role, record.after.role], ['readonly', 'member'])],
      ['member.delete', 'audited.member@example.com', admin.email, (record) => assert.equal(record.before.role, 'member')],
    ];
    for (const [action, id, actor, check] of expect) {
      const record = one(records, action, id);
      assert.equal(record.actor, actor, action);
      assert.equal(record.resource, action.split('.')[0]);
      assert.match(record.address, /127\.0\.0\.1/);
      check(record);
    }
    const retention = records.filter((record) => record.action === 'retention.update');
    assert.equal(retention.length, 1);
    assert.equal(retention[0].actor, admin.email);
    assert.equal(retention[0].after.retentionDays, 12);
    assert.equal(retention[0].before.retentionIsDefault, true);
    // The automation key itself was created by the first service key, which the trail names too.
    const keyCreate = one(records, 'key.create', terraform.id);
    assert.match(keyCreate.actor, /^key ".*" \([0-9a-f]{10}\)$/);
    assert.notEqual(keyCreate.actor, terraformActor);
  });

  test('secrets never reach the trail: keys, webhook headers, routing keys and passwords are masked', async () => {
    const records = await trail();
    const text = JSON.stringify(records);
    for (const secret of [createdKey, terraform.key, SECRETS.hookToken, SECRETS.hookAuth, SECRETS.routingKey, SECRETS.wrongPassword, writer.password, admin.password, readonly.password, server.org.serviceKey]) {
      assert.ok(!text.includes(secret), `the trail holds a secret: ${secret.slice(0, 12)}...`);
    }
    assert.equal(one(records, 'key.create', ids.key).after.key, MASK, "a created key's value is masked");
    const view = one(records, 'view.create', ids.view);
    assert.deepEqual(view.after.channels[0].headers, { 'x-token': MASK, authorization: MASK }, 'webhook header names stay, their values are masked');
    assert.equal(one(records, 'presetalert.create', ids.preset).after.channels[0].key, MASK, "a PagerDuty channel's key is masked");
    const passwordSet = records.find((record) => record.action === 'member.set-password' && record.id === writer.email);
    assert.ok(passwordSet, "choosing a password is recorded");
    assert.equal(passwordSet.after.password, MASK);
  });

  test('sign-ins and failed sign-ins are recorded, with the member and the address', async () => {
    const records = await trail('&resource=session');
    const signIns = records.filter((record) => record.actor === writer.email);
    assert.deepEqual(signIns.map((record) => record.action), ['session.sign-in-failed', 'session.sign-in'], 'newest first');
    for (const record of signIns) {
      assert.equal(record.id, writer.email);
      assert.match(record.address, /127\.0\.0\.1/);
    }
  });
});

describe('reading the trail', () => {
  test('newest first, and paging with next returns every record once', async () => {
    const all = (await withKey(server.org.serviceKey, 'GET', '/v1/config/audit?limit=500')).json;
    assert.equal(all.next, null);
    const records: AuditRecord[] = all.records;
    assert.ok(records.length >= 25, `records: ${records.length}`);
    for (let i = 1; i < records.length; i++) assert.ok(records[i - 1].at >= records[i].at, 'newest first');
    assert.equal(records[0].action, 'session.sign-in-failed', 'the last thing done is first');
    for (const record of records) assert.deepEqual(Object.keys(record).sort(), ['action', 'actor', 'address', 'after', 'at', 'before', 'id', 'resource']);

    const pages: AuditRecord[][] = [];
    let next: string | null = null;
    do {
      const reply = await withKey(server.org.serviceKey, 'GET', `/v1/config/audit?limit=7${next ? `&next=${next}` : ''}`);
      assert.equal(reply.status, 200);
      pages.push(reply.json.records);
      next = reply.json.next;
      assert.ok(pages.length < 100);
    } while (next !== null);
    assert.equal(pages.length, Math.ceil(records.length / 7));
    assert.ok(pages.slice(0, -1).every((page) => page.length === 7));
    assert.deepEqual(pages.flat(), records, 'the pages, in order, are the whole trail');
  });

  test('filters: from, to (seconds or ms), actor and resource, and together', async () => {
    const all = await trail();
    const later = await trail(`&from=${midway}`);
    assert.deepEqual(later, all.filter((record) => record.at >= midway));
    assert.ok(later.some((record) => record.resource === 'key') && !later.some((record) => record.resource === 'view'));
    const earlier = await trail(`&to=${midway}`);
    assert.deepEqual(earlier, all.filter((record) => record.at <= midway));
    assert.ok(earlier.some((record) => record.resource === 'view') && !earlier.some((record) => record.id === ids.key));
    const seconds = await trail(`&from=${Math.floor(started / 1000)}&to=${Math.ceil(finished / 1000)}`);
    assert.deepEqual(seconds, all.filter((record) => record.at >= Math.floor(started / 1000) * 1000 && record.at <= Math.ceil(finished / 1000) * 1000));

    const byWriter = await trail(`&actor=${encodeURIComponent(writer.email)}`);
    assert.ok(byWriter.length >= 8);
    assert.ok(byWriter.every((record) => record.actor === writer.email));
    const byKey = await trail(`&actor=${encodeURIComponent(terraformActor)}`);
    assert.deepEqual(byKey.map((record) => record.action), ['presetalert.delete', 'presetalert.update', 'presetalert.create']);
    const keys = await trail('&resource=key');
    assert.deepEqual(keys, all.filter((record) => record.resource === 'key'));
    const together = await trail(`&resource=category&actor=${encodeURIComponent(writer.email)}&from=${started}&to=${midway}`);
    assert.deepEqual(together.map((record) => record.action), ['category.delete', 'category.update', 'category.create']);
    assert.deepEqual(await trail('&resource=nothing-like-this'), []);
  });

  test('bad parameters are a 400', async () => {
    for (const query of ['from=yesterday', 'to=-5', 'next=abc']) {
      const reply = await withKey(server.org.serviceKey, 'GET', `/v1/config/audit?${query}`);
      assert.equal(reply.status, 400, query);
      assert.equal(reply.json.code, 'BadRequest');
    }
  });

  test('admins only: members and readonly members get the role 403, admins and keys read it', async () => {
    for (const [person, role] of [[writer, 'member'], [readonly, 'readonly']] as const) {
      const reply = await as(person, 'GET', '/v1/config/audit');
      assert.equal(reply.status, 403);
      assert.equal(reply.json.error, `Forbidden: your role (${role}) may not do this; it needs the admin role or above.`);
    }
    assert.equal((await as(admin, 'GET', '/v1/config/audit')).status, 200);
    assert.equal((await withKey(terraform.key, 'GET', '/v1/config/audit')).status, 200);
    assert.equal((await request(`${server.url}/v1/config/audit`)).status, 401);
  });
});

describe('organisations', () => {
  let other: NewAccount;
  before(async () => {
    other = await server.createOrg('audit elsewhere');
    ok(await withKey(other.serviceKey, 'POST', '/v1/config/view', { name: 'elsewhere view', query: 'x' }), "the other organisation's view");
    ok(await withKey(other.serviceKey, 'POST', '/v1/config/members', { email: 'audit.writer@example.com', role: 'admin' }), 'the same address, elsewhere');
  });

  test("another organisation's records never appear, whatever the filter; each sees its own", async () => {
    const mine = await trail();
    const theirs = await trail('', other.serviceKey);
    assert.ok(theirs.some((record) => record.action === 'view.create' && record.after.name === 'elsewhere view'), 'the other organisation sees its own');
    assert.ok(theirs.some((record) => record.action === 'member.create'));
    assert.ok(!JSON.stringify(mine).includes('elsewhere view'));
    assert.ok(!JSON.stringify(theirs).includes('audited view'));
    const theirActors = new Set(theirs.map((record) => record.actor));
    for (const actor of theirActors) assert.deepEqual(await trail(`&actor=${encodeURIComponent(actor)}&resource=view`), [], actor);
    // A failed sign-in of an address that is a member of both is recorded in each organisation, each its own.
    const failed = await request(`${server.url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: writer.email, password: SECRETS.wrongPassword }) });
    assert.equal(failed.status, 401);
    assert.equal((await trail('&resource=session', other.serviceKey)).filter((record) => record.action === 'session.sign-in-failed').length, 1);
  });
});
