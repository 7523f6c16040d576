import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestServer, request, startTestServer } from '../testing/harness.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

function call(method: string, path: string, body?: unknown, key = server.org.serviceKey) {
  return request(`${server.url}${path}`, {
    method,
    headers: { servicekey: key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

describe('categories', () => {
  test('create, list, read, rename and delete, per type', async () => {
    const created = await call('POST', '/v1/config/categories/views', { name: 'Backend' });
    assert.equal(created.status, 200, created.text);
    assert.deepEqual(Object.keys(created.json).sort(), ['id', 'name', 'type']);
    assert.equal(created.json.type, 'views');
    const boards = await call('POST', '/v1/config/categories/boards', { name: 'Backend' });
    assert.equal(boards.status, 200, 'the same name is fine under another type');
    assert.deepEqual((await call('GET', '/v1/config/categories/views')).json, [created.json]);
    assert.deepEqual((await call('GET', `/v1/config/categories/views/${created.json.id}`)).json, created.json);
    const renamed = await call('PUT', `/v1/config/categories/views/${created.json.id}`, { name: 'Platform' });
    assert.equal(renamed.json.name, 'Platform');
    assert.deepEqual(await call('DELETE', `/v1/config/categories/views/${created.json.id}`).then((r) => r.json), { deleted: true });
    assert.equal((await call('GET', `/v1/config/categories/views/${created.json.id}`)).status, 404);
  });

  test('a duplicate name, in any case, is a 409', async () => {
    await call('POST', '/v1/config/categories/screens', { name: 'Ops' });
    const duplicate = await call('POST', '/v1/config/categories/screens', { name: 'OPS' });
    assert.equal(duplicate.status, 409);
    assert.equal(duplicate.json.code, 'Conflict');
    const other = await call('POST', '/v1/config/categories/screens', { name: 'Dev' });
    const clash = await call('PUT', `/v1/config/categories/screens/${other.json.id}`, { name: 'ops' });
    assert.equal(clash.status, 409);
  });

  test('deleting a category keeps its views; renaming it renames it on them', async () => {
    const category = await call('POST', '/v1/config/categories/views', { name: 'Temporary' });
    const view = await call('POST', '/v1/config/view', { name: 'kept', query: 'x', category: ['Temporary'] });
    await call('PUT', `/v1/config/categories/views/${category.json.id}`, { name: 'Renamed' });
    assert.deepEqual((await call('GET', `/v1/config/view/${view.json.viewid}`)).json.category, ['Renamed']);
    await call('DELETE', `/v1/config/categories/views/${category.json.id}`);
    const read = await call('GET', `/v1/config/view/${view.json.viewid}`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.json.category, []);
  });

  test('bad types and names are refused', async () => {
    assert.equal((await call('GET', '/v1/config/categories/widgets')).status, 400);
    const empty = await call('POST', '/v1/config/categories/views', { name: '' });
    assert.equal(empty.status, 400);
    assert.equal(empty.json.details[0].message, '"name" is not allowed to be empty');
  });
});

describe('keys', () => {
  test('create, list, read, rename and delete ingestion and service keys', async () => {
    const created = await call('POST', '/v1/config/keys?type=ingestion', { name: 'fluent-bit' });
    assert.equal(created.status, 200, created.text);
    assert.match(created.json.key, /^[0-9a-f]{32}$/);
    assert.equal(created.json.name, 'fluent-bit');
    assert.equal(created.json.type, 'ingestion');
    assert.ok(Math.abs(created.json.created - Date.now()) < 60_000, 'created is Unix ms');
    const ingest = await request(`${server.url}/logs/ingest?hostname=h`, {
      method: 'POST',
      headers: { apikey: created.json.key, 'content-type': 'application/json' },
      body: '{"lines":[{"line":"with a new key"}]}',
    });
    assert.equal(ingest.status, 200, 'the new key works at once');

    const listed = await call('GET', '/v1/config/keys?type=ingestion');
    assert.ok(listed.json.some((key: { id: string }) => key.id === created.json.id));
    assert.ok(listed.json.every((key: { type: string; key?: string }) => key.type === 'ingestion' && key.key === undefined), 'keys are never shown again');
    assert.equal((await call('GET', `/v1/config/keys/${created.json.id}`)).json.name, 'fluent-bit');
    assert.equal((await call('PUT', `/v1/config/keys/${created.json.id}`, { name: 'vector' })).json.name, 'vector');
    assert.deepEqual((await call('DELETE', `/v1/config/keys/${created.json.id}`)).json, { deleted: true });
    const after = await request(`${server.url}/logs/ingest?hostname=h`, {
      method: 'POST',
      headers: { apikey: created.json.key, 'content-type': 'application/json' },
      body: '{"lines":[{"line":"after delete"}]}',
    });
    assert.equal(after.status, 403);
    assert.equal((await call('GET', `/v1/config/keys/${created.json.id}`)).status, 404);
  });

  test('a type is required to create and must be ingestion or service', async () => {
    assert.equal((await call('POST', '/v1/config/keys', {})).status, 400);
    assert.equal((await call('POST', '/v1/config/keys?type=admin', {})).status, 400);
  });

  test('the last service key cannot delete itself', async () => {
    const org = await server.createOrg('lonely');
    const [own] = (await call('GET', '/v1/config/keys?type=service', undefined, org.serviceKey)).json;
    const refused = await call('DELETE', `/v1/config/keys/${own.id}`, undefined, org.serviceKey);
    assert.equal(refused.status, 409);
    assert.match(refused.json.error, /last service key/);
    const spare = await call('POST', '/v1/config/keys?type=service', {}, org.serviceKey);
    assert.deepEqual((await call('DELETE', `/v1/config/keys/${own.id}`, undefined, org.serviceKey)).json, { deleted: true });
    assert.equal((await call('GET', '/v1/config/keys', undefined, org.serviceKey)).status, 401, 'the deleted key no longer works');
    assert.equal((await call('GET', '/v1/config/keys', undefined, spare.json.key)).status, 200);
  });

  test('two service keys revoking each other at once leave the organisation one of them', async () => {
    const org = await server.createOrg('pair');
    const [first] = (await call('GET', '/v1/config/keys?type=service', undefined, org.serviceKey)).json;
    const second = (await call('POST', '/v1/config/keys?type=service', {}, org.serviceKey)).json;
    assert.equal((await call('GET', '/v1/config/keys?type=service', undefined, org.serviceKey)).json.length, 2);
    const answers = await Promise.all([
      call('DELETE', `/v1/config/keys/${first.id}`, undefined, org.serviceKey),
      call('DELETE', `/v1/config/keys/${second.id}`, undefined, second.key),
    ]);
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 409], 'one revoked itself, the other was then the last');
    const survivor = answers[0].status === 409 ? org.serviceKey : second.key;
    assert.equal((await call('GET', '/v1/config/keys?type=service', undefined, survivor)).json.length, 1);
  });

  test('names holding a NUL character are refused with a 400, not stored', async () => {
    const refused = await call('POST', '/v1/config/categories/views', { name: 'bad\u0000name' });
    assert.equal(refused.status, 400);
    assert.match(refused.json.error, /NUL character/);
    assert.ok(!(await call('GET', '/v1/config/categories/views')).json.some((category: { name: string }) => category.name.startsWith('bad')));
  });

  test("keys of another organisation can be neither seen nor deleted", async () => {
    const other = await server.createOrg('neighbour');
    const theirs = (await call('GET', '/v1/config/keys', undefined, other.serviceKey)).json;
    const mine = (await call('GET', '/v1/config/keys')).json.map((key: { id: string }) => key.id);
    for (const key of theirs) {
      assert.ok(!mine.includes(key.id));
      assert.equal((await call('DELETE', `/v1/config/keys/${key.id}`)).status, 404);
    }
  });
});
