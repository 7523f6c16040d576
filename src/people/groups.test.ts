import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Reply, type TestServer, eventually, jsonLines, request, startTestServer } from '../testing/harness.js';

/**
 * The groups API as Mezmo's clients call it (POST, GET, PATCH and DELETE on /{groupId}, creates
 * answering 200), its access scopes validated as a view's query is, and membership as members and
 * groups both show it.
 */

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server?.close());

async function asKey(method: string, path: string, body?: unknown): Promise<Reply> {
  return request(`${server.url}${path}`, {
    method,
    headers: { servicekey: server.org.serviceKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}
const group = (id: string) => `/v1/config/groups/${id}`;
const member = (email: string) => `/v1/config/members/${encodeURIComponent(email)}`;

describe('the groups API', () => {
  test('create, list, get, patch and delete', async () => {
    const created = await asKey('POST', '/v1/config/groups', { name: 'Payments team', access_scopes: 'app:payments' });
    assert.equal(created.status, 200, created.text);
    assert.match(created.json.id, /^[0-9a-f]{10}$/);
    assert.equal(created.json.groupId, created.json.id, "Mezmo's paths call it groupId");
    assert.equal(created.json.name, 'Payments team');
    assert.equal(created.json.access_scopes, 'app:payments');
    assert.deepEqual(created.json.members, []);
    const id = created.json.id;

    const list = await asKey('GET', '/v1/config/groups');
    assert.equal(list.status, 200);
    assert.deepEqual(list.json.map((found: { id: string }) => found.id), [id]);
    const one = await asKey('GET', group(id));
    assert.equal(one.status, 200);
    const { admits, ...saved } = created.json;
    assert.deepEqual(one.json, saved, 'a read answers the group as saved, without what it admits');
    assert.deepEqual(admits, { apps: [], hosts: [] }, 'no line yet');
    assert.deepEqual([saved.apps, saved.hosts], [[], []]);

    const renamed = await asKey('PATCH', group(id), { name: 'Payments' });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual([renamed.json.name, renamed.json.access_scopes], ['Payments', 'app:payments'], 'a PATCH changes only what it names');
    const rescoped = await asKey('PATCH', group(id), { access_scopes: ['app:payments', 'host:pay-1 level:error'] });
    assert.equal(rescoped.status, 200, rescoped.text);
    assert.deepEqual([rescoped.json.name, rescoped.json.access_scopes], ['Payments', ['app:payments', 'host:pay-1 level:error']], 'a list of searches is kept as given');
    assert.deepEqual((await asKey('GET', group(id))).json.access_scopes, ['app:payments', 'host:pay-1 level:error']);

    const deleted = await asKey('DELETE', group(id));
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal((await asKey('GET', group(id))).status, 404);
    assert.equal((await asKey('DELETE', group(id))).status, 404);
    assert.equal((await asKey('PATCH', group(id), { name: 'back' })).status, 404);
    assert.deepEqual((await asKey('GET', '/v1/config/groups')).json, []);
  });

  test('a group without a scope limits nothing; a missing name or an empty PATCH is a Joi-style 400', async () => {
    const open = await asKey('POST', '/v1/config/groups', { name: 'Everyone' });
    assert.equal(open.status, 200, open.text);
    assert.equal(open.json.access_scopes, '');
    const noName = await asKey('POST', '/v1/config/groups', { access_scopes: 'app:x' });
    assert.equal(noName.status, 400);
    assert.equal(noName.json.details[0].key, 'name');
    const empty = await asKey('PATCH', group(open.json.id), {});
    assert.equal(empty.status, 400, empty.text);
  });

  test('a bad access scope is a 400 that says where it went wrong, and changes nothing', async () => {
    const bad = await asKey('POST', '/v1/config/groups', { name: 'Broken', access_scopes: 'level:(error' });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.json.code, 'BadRequest');
    assert.equal(bad.json.details[0].key, 'access_scopes');
    assert.match(bad.json.error, /"access_scopes" is not a valid search: Invalid query at position 12: expected "\)" to close the group/);
    assert.ok(!(await asKey('GET', '/v1/config/groups')).text.includes('Broken'), 'no group was created');

    const inList = await asKey('POST', '/v1/config/groups', { name: 'Broken list', access_scopes: ['app:fine', 'app:"unclosed'] });
    assert.equal(inList.status, 400, inList.text);
    assert.equal(inList.json.details[0].key, 'access_scopes[1]');
    assert.match(inList.json.error, /position \d+/);

    const good = await asKey('POST', '/v1/config/groups', { name: 'Fine', access_scopes: 'app:fine' });
    const patch = await asKey('PATCH', group(good.json.id), { access_scopes: 'app:fine AND (' });
    assert.equal(patch.status, 400, patch.text);
    assert.equal(patch.json.details[0].key, 'access_scopes');
    assert.match(patch.json.error, /position \d+/);
    assert.equal((await asKey('GET', group(good.json.id))).json.access_scopes, 'app:fine', 'the scope is unchanged');
  });
});

describe('membership shows on members and on groups', () => {
  test('members list their group ids, groups list their members, and removing either side keeps both true', async () => {
    const ops = (await asKey('POST', '/v1/config/groups', { name: 'Ops', access_scopes: 'app:ops' })).json;
    const web = (await asKey('POST', '/v1/config/groups', { name: 'Web', access_scopes: 'app:web' })).json;
    const kim = await asKey('POST', '/v1/config/members', { email: 'kim@example.com', role: 'member', groups: [ops.id, web.id] });
    assert.equal(kim.status, 200, kim.text);
    assert.deepEqual([...kim.json.groups].sort(), [ops.id, web.id].sort());
    assert.equal((await asKey('POST', '/v1/config/members', { email: 'lee@example.com', role: 'readonly', groups: ['Ops'] })).status, 200, 'by name too');
    assert.deepEqual((await asKey('GET', group(ops.id))).json.members, ['kim@example.com', 'lee@example.com']);
    assert.deepEqual((await asKey('GET', group(web.id))).json.members, ['kim@example.com']);
    const listed = (await asKey('GET', '/v1/config/members')).json.find((found: { email: string }) => found.email === 'lee@example.com');
    assert.deepEqual(listed.groups, [ops.id]);

    assert.equal((await asKey('PUT', member('kim@example.com'), { groups: [web.id] })).status, 200);
    assert.deepEqual((await asKey('GET', group(ops.id))).json.members, ['lee@example.com']);
    // Kim's only scoped group: deleting it lets her see every line, which must be asked for.
    const refused = await asKey('DELETE', group(web.id));
    assert.equal(refused.status, 409, refused.text);
    assert.deepEqual(refused.json.members, ['kim@example.com']);
    assert.equal((await asKey('DELETE', `${group(web.id)}?widen=true`)).status, 200);
    assert.deepEqual((await asKey('GET', member('kim@example.com'))).json.groups, [], 'a deleted group leaves its members');
    assert.equal((await asKey('DELETE', member('lee@example.com'))).status, 200);
    assert.deepEqual((await asKey('GET', group(ops.id))).json.members, [], 'a removed member leaves their groups');
  });

  test("a group's scope holds for its members from their next request, and a change of it too", async () => {
    const nowS = Math.floor(Date.now() / 1000);
    const reply = await request(`${server.url}/logs/ingest?hostname=scope-host`, {
      method: 'POST',
      headers: { apikey: server.org.ingestionKey, 'content-type': 'application/json' },
      body: JSON.stringify({ lines: [{ line: 'alpha line', app: 'alpha' }, { line: 'beta line', app: 'beta' }] }),
    });
    assert.equal(reply.status, 200);
    const scoped = (await asKey('POST', '/v1/config/groups', { name: 'Alpha only', access_scopes: 'app:alpha' })).json;
    const pat = await server.signInAs('pat@example.com', 'readonly', { groups: [scoped.id] });
    const seen = async () => {
      const exported = await request(`${server.url}/v1/export?from=${nowS - 60}&to=${nowS + 60}`, { headers: pat.headers() });
      assert.equal(exported.status, 200, exported.text);
      return jsonLines(exported.text).map((line) => line._app).sort();
    };
    const all = await eventually(async () => {
      const lines = await request(`${server.url}/v1/export?from=${nowS - 60}&to=${nowS + 60}`, { headers: { servicekey: server.org.serviceKey } });
      return jsonLines(lines.text).length >= 2 ? true : undefined;
    }, 10_000, 'the lines to be stored');
    assert.ok(all);
    assert.deepEqual(await seen(), ['alpha']);
    assert.equal((await asKey('PATCH', group(scoped.id), { access_scopes: 'app:beta' })).status, 200);
    assert.deepEqual(await seen(), ['beta'], 'the new scope holds at the next request');
    assert.equal((await asKey('PUT', member('pat@example.com'), { groups: [] })).status, 409, 'widening is asked for');
    assert.deepEqual(await seen(), ['beta'], 'a refused change changed nothing');
    assert.equal((await asKey('PUT', `${member('pat@example.com')}?widen=true`, { groups: [] })).status, 200);
    assert.deepEqual(await seen(), ['alpha', 'beta'], 'a member in no scoped group sees everything');
  });
});
