import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestServer, eventually, request, startTestServer } from '../testing/harness.js';
import { startHttpReceiver } from '../testing/receivers.js';

/**
 * A view saved by a scoped member follows that member's scope as it changes (a group's scope
 * edited, the member moved out of their groups): its alert counts and sends only the lines the
 * member may see at the time, never the lines the old scope let through.
 */

const MINUTE = 60_000;
let clock = Math.floor(Date.now() / MINUTE) * MINUTE;
let server: TestServer;
let hooks: Awaited<ReturnType<typeof startHttpReceiver>>;

before(async () => {
  hooks = await startHttpReceiver();
  server = await startTestServer({ LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS: 'true', LOGSTEAD_DELIVERY_RETRY_BASE_MS: '50' }, { now: () => clock });
});
after(async () => {
  await server.close();
  await hooks.close();
});

const asKey = (method: string, path: string, body?: unknown) =>
  request(`${server.url}${path}`, { method, headers: { servicekey: server.org.serviceKey, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

async function send(app: string, line: string) {
  const reply = await request(`${server.url}/logs/ingest?hostname=h1`, {
    method: 'POST',
    headers: { apikey: server.org.ingestionKey, 'content-type': 'application/json' },
    body: JSON.stringify({ lines: [{ line, app, timestamp: clock }] }),
  });
  assert.equal(reply.status, 200);
}

/** The lines of the alerts received so far, one list per alert. */
const alerts = () => hooks.received.map((hook) => (JSON.parse(hook.body).line_objects as Array<{ _line: string }>).map((line) => line._line));

const storedScope = async (viewid: string) =>
  (await server.running.db.selectFrom('views').select('access_scope').where('viewid', '=', viewid).executeTakeFirstOrThrow()).access_scope;

test("a scoped member's view and its alert follow the member's scope as it changes", async () => {
  const group = await asKey('POST', '/v1/config/groups', { name: 'web team', access_scopes: 'app:web' });
  assert.equal(group.status, 200);
  const member = await server.signInAs('scoped@example.com', 'member', { groups: [group.json.id] });
  const channel = { integration: 'webhook', url: `${hooks.url}/hook`, method: 'post', operator: 'presence', triggerlimit: 1, triggerinterval: '1m', immediate: true, terminal: false };
  const view = await request(`${server.url}/v1/config/view`, {
    method: 'POST',
    headers: { ...member.headers(true), 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'orders', query: 'order', channels: [channel] }),
  });
  assert.equal(view.status, 200, view.text);
  assert.equal(await storedScope(view.json.viewid), JSON.stringify(['app:web']));

  // Inside the first scope: the web line fires the alert.
  clock += MINUTE;
  await send('db', 'order one from db');
  await send('web', 'order one from web');
  await eventually(() => (alerts().length === 1 ? true : undefined), 10_000, 'the first alert');
  assert.deepEqual(alerts()[0], ['order one from web']);

  // The group's scope moves to the database app: the view follows, and the web line no longer counts.
  assert.equal((await asKey('PATCH', `/v1/config/groups/${group.json.id}`, { access_scopes: 'app:db' })).status, 200);
  assert.equal(await storedScope(view.json.viewid), JSON.stringify(['app:db']));
  clock += MINUTE;
  await send('web', 'order two from web');
  await send('db', 'order two from db');
  await eventually(() => (alerts().length === 2 ? true : undefined), 10_000, 'the second alert');
  assert.deepEqual(alerts()[1], ['order two from db']);

  // Out of every group, the member sees everything, and so does the view they saved.
  assert.equal((await asKey('PUT', '/v1/config/members/scoped@example.com?widen=true', { groups: [] })).status, 200);
  assert.equal(await storedScope(view.json.viewid), null);
  clock += MINUTE;
  await send('web', 'order three from web');
  await eventually(() => (alerts().length === 3 ? true : undefined), 10_000, 'the third alert');
  assert.deepEqual(alerts()[2], ['order three from web']);
  assert.equal(alerts().length, 3, 'no other alert');
});
