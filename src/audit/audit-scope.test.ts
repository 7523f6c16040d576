import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { type MemberSession, type TestServer, callJson, startTestServer } from '../testing/harness.js';

/**
 * The audit trail records the whole organisation's changes, with the resources before and after
 * (here a view of payroll's lines), and cannot be cut down to an access scope: an admin scoped to
 * `app:billing` is refused with 403 naming their scope (issue 39, point 6), while the owner and an
 * admin in no scoped group read it as before. SQLite, or PostgreSQL with
 * LOGSTEAD_TEST_DATABASE=postgres.
 */

const hex = () => randomBytes(4).toString('hex');
let server: TestServer;
let scopedAdmin: MemberSession;
let unscopedAdmin: MemberSession;

const keyHeaders = () => ({ servicekey: server.org.serviceKey });
const call = (method: string, path: string, headers: Record<string, string>, body?: unknown) => callJson(server.url, method, path, headers, body);

before(async () => {
  server = await startTestServer();
  const view = await call('POST', '/v1/config/view', keyHeaders(), { name: 'payroll runs', query: 'salary', apps: ['payroll'] });
  assert.equal(view.status, 200, view.text);
  const group = await call('POST', '/v1/config/groups', keyHeaders(), { name: `billing ${hex()}`, access_scopes: ['app:billing', 'host:billing-1'] });
  assert.equal(group.status, 200, group.text);
  scopedAdmin = await server.signInAs(`scoped.${hex()}@example.com`, 'admin', { groups: [group.json.id] });
  unscopedAdmin = await server.signInAs(`admin.${hex()}@example.com`, 'admin');
});
after(() => server?.close());

test('the owner and an unscoped admin read the audit trail; a scoped admin is refused, told their scope', async () => {
  const owner = await call('GET', '/v1/config/audit?resource=view', keyHeaders());
  assert.equal(owner.status, 200, owner.text);
  assert.ok(owner.text.includes('payroll'), 'the trail names the payroll view');
  assert.equal((await call('GET', '/v1/config/audit?resource=view', unscopedAdmin.headers())).status, 200);

  const scoped = await call('GET', '/v1/config/audit?resource=view', scopedAdmin.headers());
  assert.equal(scoped.status, 403, scoped.text);
  assert.equal(scoped.json.code, 'Forbidden');
  assert.match(scoped.json.error, /your access scope \("app:billing" OR "host:billing-1"\)/);
  assert.ok(!scoped.text.includes('payroll'));
});
