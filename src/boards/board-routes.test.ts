import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestServer, request, startTestServer } from '../testing/harness.js';

/** The boards configuration API (/v1/config/board): CRUD, validation, categories and the audit trail. */

let server: TestServer;

before(async () => {
  server = await startTestServer();
});
after(() => server.close());

function call(method: string, path: string, body?: unknown, headers: Record<string, string> = { servicekey: server.org.serviceKey }) {
  return request(`${server.url}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

const errorsPerHour = { title: 'Errors per hour by app', query: 'level:error', measure: { type: 'count' }, breakdown: { field: 'app', limit: 5 } };
const p95 = { title: 'p95 response time', query: 'status:>=200', apps: ['nginx'], measure: { type: 'p95', field: 'request_time' } };

describe('boards', () => {
  test('POST creates a board with its graphs; GET reads it alone and in the list', async () => {
    const created = await call('POST', '/v1/config/board', { name: 'Checkout', graphs: [errorsPerHour, p95] });
    assert.equal(created.status, 200, created.text);
    const board = created.json;
    assert.match(board.boardId, /^[0-9a-f]{10}$/);
    assert.equal(board.name, 'Checkout');
    assert.equal(board.category, null);
    assert.equal(board.graphs.length, 2);
    for (const graph of board.graphs) assert.match(graph.graphId, /^[0-9a-f]{10}$/);
    assert.deepEqual(board.graphs[0], { ...errorsPerHour, graphId: board.graphs[0].graphId, apps: [], hosts: [], levels: [], tags: [] });
    assert.deepEqual(board.graphs[1], { ...p95, graphId: board.graphs[1].graphId, hosts: [], levels: [], tags: [] });

    const one = await call('GET', `/v1/config/board/${board.boardId}`);
    assert.equal(one.status, 200);
    assert.deepEqual(one.json, board);
    const listed = await call('GET', '/v1/config/board');
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.json.find((found: { boardId: string }) => found.boardId === board.boardId), board);
  });

  test('a board with no graphs may be made, as Mezmo makes one empty first; a count drops a field it does not use', async () => {
    const empty = await call('POST', '/v1/config/board', { name: 'Empty' });
    assert.equal(empty.status, 200, empty.text);
    assert.deepEqual(empty.json.graphs, []);
    const counted = await call('POST', '/v1/config/board', { name: 'Counted', graphs: [{ title: 'lines', measure: { type: 'count', field: 'status' } }] });
    assert.equal(counted.status, 200, counted.text);
    assert.deepEqual(counted.json.graphs[0].measure, { type: 'count' });
    assert.equal(counted.json.graphs[0].breakdown, undefined);
  });

  test('PUT replaces the board whole; a graph sent with its id keeps it, a new one gets one', async () => {
    const created = (await call('POST', '/v1/config/board', { name: 'Before', graphs: [errorsPerHour] })).json;
    const kept = created.graphs[0];
    const replaced = await call('PUT', `/v1/config/board/${created.boardId}`, { name: 'After', graphs: [{ ...kept, title: 'Renamed' }, p95] });
    assert.equal(replaced.status, 200, replaced.text);
    assert.equal(replaced.json.name, 'After');
    assert.equal(replaced.json.graphs[0].graphId, kept.graphId);
    assert.equal(replaced.json.graphs[0].title, 'Renamed');
    assert.notEqual(replaced.json.graphs[1].graphId, kept.graphId);
    assert.deepEqual((await call('GET', `/v1/config/board/${created.boardId}`)).json, replaced.json);
    assert.equal(replaced.json._created, created._created);
  });

  test('DELETE removes a board; a missing board is a 404 on every verb', async () => {
    const created = (await call('POST', '/v1/config/board', { name: 'Doomed' })).json;
    const deleted = await call('DELETE', `/v1/config/board/${created.boardId}`);
    assert.equal(deleted.status, 200);
    assert.deepEqual(deleted.json, { deleted: true });
    for (const [method, body] of [['GET'], ['DELETE'], ['PUT', { name: 'x' }]] as const) {
      const reply = await call(method, `/v1/config/board/${created.boardId}`, body);
      assert.equal(reply.status, 404, `${method}: ${reply.text}`);
      assert.equal(reply.json.error, 'No such board.');
    }
    assert.equal((await call('GET', `/v1/board/${created.boardId}/graph/x/data?from=0&to=1`)).status, 404);
  });

  test('a board is in a category of type boards, by name; deleting the category leaves the board uncategorized', async () => {
    const category = await call('POST', '/v1/config/categories/boards', { name: 'Payments' });
    assert.equal(category.status, 200, category.text);
    const viewCategory = await call('POST', '/v1/config/categories/views', { name: 'Only for views' });
    assert.equal(viewCategory.status, 200);
    const created = await call('POST', '/v1/config/board', { name: 'Filed', category: 'payments' });
    assert.equal(created.status, 200, created.text);
    assert.equal(created.json.category, 'Payments', 'named as the category is, whatever case was sent');
    const wrongType = await call('POST', '/v1/config/board', { name: 'Misfiled', category: 'Only for views' });
    assert.equal(wrongType.status, 400);
    assert.equal(wrongType.json.error, 'Invalid category name(s): Only for views');
    // Renamed: the board follows the category, which it holds by id.
    assert.equal((await call('PUT', `/v1/config/categories/boards/${category.json.id}`, { name: 'Payments team' })).status, 200);
    assert.equal((await call('GET', `/v1/config/board/${created.json.boardId}`)).json.category, 'Payments team');
    assert.equal((await call('DELETE', `/v1/config/categories/boards/${category.json.id}`)).status, 200);
    assert.equal((await call('GET', `/v1/config/board/${created.json.boardId}`)).json.category, null);
    // A category made again with the old name is a new one: the board stays uncategorized.
    await call('POST', '/v1/config/categories/boards', { name: 'Payments team' });
    assert.equal((await call('GET', `/v1/config/board/${created.json.boardId}`)).json.category, null);
  });
});

describe('validation: clear 400s, and nothing written', () => {
  const cases: Array<{ what: string; body: unknown; message: string | RegExp; key?: string }> = [
    { what: 'no name', body: { graphs: [] }, message: '"name" is required', key: 'name' },
    { what: 'an unknown measure', body: { name: 'b', graphs: [{ title: 't', measure: { type: 'median', field: 'x' } }] }, message: '"graphs[0].measure.type" must be one of [count, sum, avg, min, max, unique, p50, p90, p95, p99]', key: 'graphs[0].measure.type' },
    { what: 'a sum without a field', body: { name: 'b', graphs: [{ title: 't', measure: { type: 'sum' } }] }, message: '"graphs[0].measure.field" is required: the measure "sum" is taken of a field', key: 'graphs[0].measure.field' },
    { what: 'a p95 of a text field', body: { name: 'b', graphs: [{ title: 't', measure: { type: 'p95', field: 'host' } }] }, message: /"graphs\[0\]\.measure\.field" is "host", which holds text/ },
    { what: 'a field that is not a name', body: { name: 'b', graphs: [{ title: 't', measure: { type: 'max', field: 'a b' } }] }, message: /must be a field name as search writes it/ },
    { what: 'a breakdown by tag', body: { name: 'b', graphs: [{ title: 't', measure: { type: 'count' }, breakdown: { field: 'tag', limit: 3 } }] }, message: /"graphs\[0\]\.breakdown\.field" cannot be "tag"/ },
    { what: 'a breakdown limit of 0', body: { name: 'b', graphs: [{ title: 't', measure: { type: 'count' }, breakdown: { field: 'app', limit: 0 } }] }, message: '"graphs[0].breakdown.limit" must be greater than or equal to 1' },
    { what: 'a breakdown limit of 21', body: { name: 'b', graphs: [{ title: 't', measure: { type: 'count' }, breakdown: { field: 'app', limit: 21 } }] }, message: '"graphs[0].breakdown.limit" must be less than or equal to 20' },
    { what: 'too many graphs', body: { name: 'b', graphs: Array.from({ length: 31 }, (_, at) => ({ title: `g${at}`, measure: { type: 'count' } })) }, message: '"graphs" must contain less than or equal to 30 items' },
    { what: 'a query that is not a search', body: { name: 'b', graphs: [{ title: 't', query: 'status:(200', measure: { type: 'count' } }] }, message: /^"graphs\[0\]\.query" is not a valid search: Invalid query at position/ },
    { what: 'a graph without a title', body: { name: 'b', graphs: [{ measure: { type: 'count' } }] }, message: '"graphs[0].title" is required' },
    { what: 'two graphs with one id', body: { name: 'b', graphs: [{ graphId: 'g1', title: 'a', measure: { type: 'count' } }, { graphId: 'g1', title: 'b', measure: { type: 'count' } }] }, message: '"graphs[1].graphId" is the id of another graph of this board' },
  ];
  for (const { what, body, message, key } of cases) {
    test(what, async () => {
      const before = (await call('GET', '/v1/config/board')).json.length;
      const reply = await call('POST', '/v1/config/board', body);
      assert.equal(reply.status, 400, reply.text);
      assert.equal(reply.json.code, 'BadRequest');
      if (typeof message === 'string') assert.equal(reply.json.error, message);
      else assert.match(reply.json.error, message);
      if (key) assert.equal(reply.json.details[0].key, key);
      assert.equal((await call('GET', '/v1/config/board')).json.length, before, 'nothing was created');
    });
  }

  test('a PUT that fails validation leaves the board as it was', async () => {
    const created = (await call('POST', '/v1/config/board', { name: 'Stays', graphs: [errorsPerHour] })).json;
    const reply = await call('PUT', `/v1/config/board/${created.boardId}`, { name: 'Changed', graphs: [{ title: 't', measure: { type: 'avg' } }] });
    assert.equal(reply.status, 400);
    assert.equal(reply.json.details[0].field, 'Graph 1: Measure: Field');
    assert.deepEqual((await call('GET', `/v1/config/board/${created.boardId}`)).json, created);
  });
});

describe('permissions and the audit trail', () => {
  test('readonly reads boards and their data but may not write them; a member writes them', async () => {
    const readonly = await server.signInAs('board-reader@example.com', 'readonly');
    const member = await server.signInAs('board-writer@example.com', 'member');
    const created = (await call('POST', '/v1/config/board', { name: 'Shared', graphs: [errorsPerHour] })).json;
    assert.equal((await call('GET', '/v1/config/board', undefined, readonly.headers())).status, 200);
    assert.equal((await call('GET', `/v1/config/board/${created.boardId}`, undefined, readonly.headers())).status, 200);
    const now = Date.now();
    assert.equal((await call('GET', `/v1/board/${created.boardId}/graph/${created.graphs[0].graphId}/data?from=${now - 3_600_000}&to=${now}`, undefined, readonly.headers())).status, 200);
    const chart = await call('POST', '/v1/viewer/chart', { measure: { type: 'count' }, from: now - 3_600_000, to: now }, readonly.headers(true));
    assert.equal(chart.status, 200, chart.text);
    for (const [method, path, body] of [['POST', '/v1/config/board', { name: 'x' }], ['PUT', `/v1/config/board/${created.boardId}`, { name: 'x' }], ['DELETE', `/v1/config/board/${created.boardId}`]] as const) {
      const reply = await call(method, path, body, readonly.headers(true));
      assert.equal(reply.status, 403, `${method} ${path}`);
      assert.equal(reply.json.error, 'Forbidden: your role (readonly) may not do this; it needs the member role or above.');
    }
    const written = await call('PUT', `/v1/config/board/${created.boardId}`, { name: 'By a member' }, member.headers(true));
    assert.equal(written.status, 200, written.text);
  });

  test('every change of a board is in the audit trail, with who, and the board before and after', async () => {
    const member = await server.signInAs('board-audited@example.com', 'member');
    const created = (await call('POST', '/v1/config/board', { name: 'Audited', graphs: [errorsPerHour] }, member.headers(true))).json;
    const updated = (await call('PUT', `/v1/config/board/${created.boardId}`, { name: 'Audited, renamed', graphs: created.graphs }, member.headers(true))).json;
    assert.equal((await call('DELETE', `/v1/config/board/${created.boardId}`, undefined, member.headers(true))).status, 200);
    const trail = await call('GET', '/v1/config/audit?resource=board');
    assert.equal(trail.status, 200, trail.text);
    const mine = trail.json.records.filter((record: { id: string }) => record.id === created.boardId).reverse();
    assert.deepEqual(mine.map((record: { action: string }) => record.action), ['board.create', 'board.update', 'board.delete']);
    for (const record of mine) assert.equal(record.actor, member.email);
    assert.deepEqual([mine[0].before, mine[0].after], [null, created]);
    assert.deepEqual([mine[1].before, mine[1].after], [created, updated]);
    assert.deepEqual([mine[2].before, mine[2].after], [updated, null]);
  });
});
