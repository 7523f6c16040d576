import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { NewAccount } from '../accounts/accounts.js';
import { type TestServer, request, startTestServer } from '../testing/harness.js';

/**
 * Mezmo's usage paths: /v1/usage/{apps,hosts,tags}[/{name}] as {name, current_total,
 * percentage_of_total} in lines (Mezmo's definition of usage), and /v2/usage[/{apps,hosts,tags}[/{name}]] in bytes over whole
 * UTC days; each organisation's own lines, as its reader may see them.
 */

const DAY = 86_400_000;
const DAY1 = Math.floor(Date.now() / DAY) * DAY - 2 * DAY;
const hex = () => randomBytes(4).toString('hex');
const WEB = `web${hex()}`;
const DB = `db${hex()}`;

let server: TestServer;
let A: NewAccount;
let B: NewAccount;

async function ingest(key: string, hostname: string, tags: string, lines: object[]) {
  const reply = await request(`${server.url}/logs/ingest?hostname=${hostname}&tags=${tags}`, {
    method: 'POST',
    headers: { apikey: key, 'content-type': 'application/json' },
    body: JSON.stringify({ lines }),
  });
  assert.equal(reply.status, 200, reply.text);
}
const get = (path: string, headers: Record<string, string> = { servicekey: A.serviceKey }) => request(`${server.url}${path}`, { headers });

before(async () => {
  server = await startTestServer();
  A = server.org;
  B = await server.createOrg(`usage B ${hex()}`);
  await ingest(A.ingestionKey, 'h1', 'prod,eu', [
    { line: 'aaaa', app: WEB, timestamp: DAY1 + 1000 },
    { line: 'bbbb', app: WEB, timestamp: DAY1 + 2000 },
  ]);
  await ingest(A.ingestionKey, 'h2', 'prod', [{ line: 'x'.repeat(10), app: DB, timestamp: DAY1 + 3000 }]);
  await ingest(B.ingestionKey, 'h1', 'prod', [{ line: 'b'.repeat(1000), app: WEB, timestamp: DAY1 + 1000 }]);
});
after(() => server.close());

test('v1 lists apps, hosts and tags by lines, most lines first, with their share of all lines, and limit', async () => {
  // WEB has more lines (2) but fewer bytes (8) than DB (1 line, 10 bytes): v1 counts lines.
  assert.deepEqual((await get('/v1/usage/apps')).json, [
    { name: WEB, current_total: 2, percentage_of_total: 66.67 },
    { name: DB, current_total: 1, percentage_of_total: 33.33 },
  ]);
  assert.deepEqual((await get('/v1/usage/hosts?limit=1')).json, [{ name: 'h1', current_total: 2, percentage_of_total: 66.67 }]);
  // A line counts for each of its tags.
  assert.deepEqual((await get('/v1/usage/tags')).json, [
    { name: 'prod', current_total: 3, percentage_of_total: 100 },
    { name: 'eu', current_total: 2, percentage_of_total: 66.67 },
  ]);
  assert.deepEqual((await get(`/v1/usage/apps?from=${DAY1 + 2500}&to=${Math.floor(Date.now() / 1000)}`)).json, [{ name: DB, current_total: 1, percentage_of_total: 100 }]);
});

test('v1 by name answers one, or null when it has no lines', async () => {
  assert.deepEqual((await get(`/v1/usage/apps/${WEB}`)).json, { name: WEB, current_total: 2, percentage_of_total: 66.67 });
  assert.deepEqual((await get('/v1/usage/hosts/h2')).json, { name: 'h2', current_total: 1, percentage_of_total: 33.33 });
  assert.deepEqual((await get('/v1/usage/tags/eu')).json, { name: 'eu', current_total: 2, percentage_of_total: 66.67 });
  const missing = await get('/v1/usage/apps/nothing-here');
  assert.equal(missing.status, 200);
  assert.equal(missing.text, 'null');
});

test('v2 reports bytes over whole UTC days, largest first', async () => {
  const day = new Date(DAY1).toISOString();
  const next = new Date(DAY1 + DAY).toISOString();
  const noon = new Date(DAY1 + DAY / 2).toISOString();
  assert.deepEqual((await get(`/v2/usage?from=${noon}&to=${noon}`)).json, { from: day, to: next, results: { plan_bytes: 18 } });
  assert.deepEqual((await get(`/v2/usage/apps?from=${day}&to=${noon}`)).json, { from: day, to: next, results: [{ name: DB, total_bytes: 10 }, { name: WEB, total_bytes: 8 }] });
  assert.deepEqual((await get(`/v2/usage/tags/eu?from=${day}&to=${noon}`)).json, { from: day, to: next, results: [{ name: 'eu', total_bytes: 8 }] });
  assert.deepEqual((await get(`/v2/usage/hosts/nowhere?from=${day}&to=${noon}`)).json.results, []);
  // The day before has nothing.
  const before = new Date(DAY1 - DAY / 2).toISOString();
  assert.deepEqual((await get(`/v2/usage?from=${before}&to=${before}`)).json.results, { plan_bytes: 0 });
  // Without a range: all the organisation keeps, up to today.
  assert.equal((await get('/v2/usage')).json.results.plan_bytes, 18);
});

test("each organisation sees its own usage only, and a scoped member only what the scope shows", async () => {
  assert.deepEqual((await get('/v1/usage/apps', { servicekey: B.serviceKey })).json, [{ name: WEB, current_total: 1, percentage_of_total: 100 }]);
  assert.equal((await get(`/v1/usage/apps/${DB}`, { servicekey: B.serviceKey })).text, 'null');
  assert.equal((await get('/v2/usage', { servicekey: B.serviceKey })).json.results.plan_bytes, 1000);

  const group = await request(`${server.url}/v1/config/groups`, {
    method: 'POST',
    headers: { servicekey: A.serviceKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `web only ${hex()}`, access_scopes: `app:${WEB}` }),
  });
  assert.equal(group.status, 200, group.text);
  const scoped = await server.signInAs(`scoped.${hex()}@example.com`, 'readonly', { groups: [group.json.id] });
  assert.deepEqual((await get('/v1/usage/apps', scoped.headers())).json, [{ name: WEB, current_total: 2, percentage_of_total: 100 }]);
  assert.equal((await get('/v2/usage', scoped.headers())).json.results.plan_bytes, 8);

  // Every form, by app, host and tag (issue 39, point 6): no name or byte of the other app's lines.
  const day = new Date(DAY1).toISOString();
  const next = new Date(DAY1 + DAY).toISOString();
  const expected: Record<string, unknown> = {
    '/v1/usage/hosts': [{ name: 'h1', current_total: 2, percentage_of_total: 100 }],
    '/v1/usage/tags': [
      { name: 'eu', current_total: 2, percentage_of_total: 100 },
      { name: 'prod', current_total: 2, percentage_of_total: 100 },
    ],
    [`/v1/usage/apps/${DB}`]: null,
    '/v1/usage/hosts/h2': null,
    '/v1/usage/tags/prod': { name: 'prod', current_total: 2, percentage_of_total: 100 },
    [`/v2/usage/apps?from=${day}&to=${day}`]: { from: day, to: next, results: [{ name: WEB, total_bytes: 8 }] },
    [`/v2/usage/hosts?from=${day}&to=${day}`]: { from: day, to: next, results: [{ name: 'h1', total_bytes: 8 }] },
    [`/v2/usage/tags?from=${day}&to=${day}`]: { from: day, to: next, results: [{ name: 'eu', total_bytes: 8 }, { name: 'prod', total_bytes: 8 }] },
    [`/v2/usage/apps/${DB}?from=${day}&to=${day}`]: { from: day, to: next, results: [] },
    [`/v2/usage/hosts/h2?from=${day}&to=${day}`]: { from: day, to: next, results: [] },
    [`/v2/usage?from=${day}&to=${day}`]: { from: day, to: next, results: { plan_bytes: 8 } },
  };
  const unscoped = await server.signInAs(`unscoped.${hex()}@example.com`, 'readonly');
  for (const [path, answer] of Object.entries(expected)) {
    const reply = await get(path, scoped.headers());
    assert.equal(reply.status, 200, `${path}: ${reply.text}`);
    assert.ok(!reply.text.includes(DB) && !reply.text.includes('h2'), `${path}: nothing of the other app's lines in ${reply.text}`);
    assert.deepEqual(reply.json, answer, path);
    // Unscoped readers get what the key gets.
    assert.deepEqual((await get(path, unscoped.headers())).json, (await get(path)).json, `${path}, unscoped`);
  }
  assert.ok((await get('/v1/usage/hosts')).text.includes('h2'), "the owner's key sees the other app's host");
});

test('bad parameters get a 400 in the catalogue; no key gets 401', async () => {
  for (const path of ['/v1/usage/apps?from=yesterday', '/v1/usage/hosts?limit=many', '/v1/usage/tags?limit=0', `/v1/usage/apps?from=${DAY1 + DAY}&to=${DAY1}`, '/v2/usage?from=2026-11-26', '/v2/usage/apps?to=tomorrow', '/v2/usage?from=2026-11-26T00:00:00Z&to=2026-11-20T00:00:00Z']) {
    const reply = await get(path);
    assert.equal(reply.status, 400, `${path}: ${reply.text}`);
    assert.equal(reply.json.code, 'BadRequest');
  }
  assert.equal((await request(`${server.url}/v1/usage/apps`)).status, 401);
  assert.equal((await request(`${server.url}/v2/usage`)).status, 401);
});
