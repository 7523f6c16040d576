import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestServer, request, startTestServer } from '../testing/harness.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

async function signIn(serviceKey: string) {
  const reply = await request(`${server.url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ serviceKey }) });
  const setCookie = reply.headers.get('set-cookie') ?? '';
  return { reply, setCookie, cookie: setCookie.split(';')[0], csrf: reply.json?.csrfToken as string };
}

test('signing in with a service key sets an HttpOnly, SameSite=Strict session cookie', async () => {
  const { reply, setCookie, cookie } = await signIn(server.org.serviceKey);
  assert.equal(reply.status, 200);
  assert.equal(reply.json.account, server.org.account);
  assert.equal(reply.json.name, 'default');
  assert.match(setCookie, /HttpOnly/i);
  assert.match(setCookie, /SameSite=Strict/i);
  assert.match(setCookie, /Path=\//);
  const me = await request(`${server.url}/api/session`, { headers: { cookie } });
  assert.equal(me.json.account, server.org.account);
  assert.equal(me.json.csrfToken, reply.json.csrfToken);
});

test('a wrong key or an ingestion key cannot sign in', async () => {
  assert.equal((await signIn('nope')).reply.status, 401);
  assert.equal((await signIn(server.org.ingestionKey)).reply.status, 401);
  assert.equal((await request(`${server.url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status, 400);
});

test('the session reads with its cookie, and writes only with its CSRF token', async () => {
  const { cookie, csrf } = await signIn(server.org.serviceKey);
  assert.equal((await request(`${server.url}/v1/config/view`, { headers: { cookie } })).status, 200);
  const body = JSON.stringify({ name: 'from the viewer', query: 'x' });
  const withoutToken = await request(`${server.url}/v1/config/view`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body });
  assert.equal(withoutToken.status, 403);
  assert.match(withoutToken.json.error, /x-csrf-token/);
  const wrongToken = await request(`${server.url}/v1/config/view`, { method: 'POST', headers: { cookie, 'content-type': 'application/json', 'x-csrf-token': 'guess' }, body });
  assert.equal(wrongToken.status, 403);
  const withToken = await request(`${server.url}/v1/config/view`, { method: 'POST', headers: { cookie, 'content-type': 'application/json', 'x-csrf-token': csrf }, body });
  assert.equal(withToken.status, 200);
  assert.equal((await request(`${server.url}/v2/export?from=0&to=1`, { headers: { cookie } })).status, 200);
});

test('no viewer API answers without a session or a key', async () => {
  for (const path of ['/v1/config/view', '/v2/export?from=0&to=1', '/v1/histogram?from=0&to=1', '/v1/alerts/deliveries', '/api/session']) {
    assert.equal((await request(`${server.url}${path}`)).status, 401, path);
    assert.equal((await request(`${server.url}${path}`, { headers: { cookie: 'logstead_session=forged' } })).status, 401, path);
  }
});

test('signing out ends the session', async () => {
  const { cookie, csrf } = await signIn(server.org.serviceKey);
  assert.equal((await request(`${server.url}/api/session`, { method: 'DELETE', headers: { cookie } })).status, 403, 'sign-out needs the CSRF token');
  const out = await request(`${server.url}/api/session`, { method: 'DELETE', headers: { cookie, 'x-csrf-token': csrf } });
  assert.equal(out.status, 200);
  assert.match(out.headers.get('set-cookie') ?? '', /logstead_session=;/);
  assert.equal((await request(`${server.url}/v1/config/view`, { headers: { cookie } })).status, 401);
});

test("a session sees only its own organisation, and dies with a deactivated account", async () => {
  const other = await server.createOrg('other');
  const { cookie } = await signIn(other.serviceKey);
  const views = await request(`${server.url}/v1/config/view`, { headers: { cookie } });
  assert.deepEqual(views.json, []);
  await server.withAccounts((accounts) => accounts.setActive(other.account, false));
  assert.equal((await request(`${server.url}/v1/config/view`, { headers: { cookie } })).status, 401);
});
