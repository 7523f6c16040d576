/**
 * The tools that let users trust their alerts: "send test" through the real sender, the delivery
 * history of one view with the receiver's status codes, and the warnings a saved view gets when a
 * channel cannot deliver. This server may reach loopback and has SMTP; alert-tools-default.test.ts
 * has neither, as a default installation.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestServer, eventually, request, startTestServer } from '../testing/harness.js';
import { startHttpReceiver, startSmtpReceiver } from '../testing/receivers.js';

let open: TestServer;
let hooks: Awaited<ReturnType<typeof startHttpReceiver>>;
let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;

before(async () => {
  hooks = await startHttpReceiver();
  smtp = await startSmtpReceiver();
  open = await startTestServer({ LOGSTEAD_SMTP_URL: smtp.url, LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS: 'true', LOGSTEAD_DELIVERY_RETRY_BASE_MS: '20' });
});
after(async () => {
  await open.close();
  await Promise.all([hooks.close(), smtp.close()]);
});

function call(server: TestServer, method: string, path: string, body?: unknown) {
  return request(`${server.url}${path}`, {
    method,
    headers: { servicekey: server.org.serviceKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

const hooksAt = (path: string) => hooks.received.filter((hook) => hook.path === path);

describe('send test', () => {
  test('a webhook test reaches the receiver once, and the answer is its status', async () => {
    const channel = { integration: 'webhook', url: `${hooks.url}/test-ok`, triggerlimit: 1, immediate: true };
    const reply = await call(open, 'POST', '/v1/alerts/test-channel', { channel });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.json, { ok: true, status: 200, detail: 'HTTP 200' });
    const [hook] = hooksAt('/test-ok');
    assert.match(JSON.parse(hook.body).line, /test notification/);

    hooks.answer(503);
    const failing = await call(open, 'POST', '/v1/alerts/test-channel', { channel: { ...channel, url: `${hooks.url}/test-503` } });
    assert.deepEqual(failing.json, { ok: false, status: 503, detail: 'HTTP 503' });
    assert.equal(hooksAt('/test-503').length, 1, 'a test is sent once, never retried');
  });

  test("a test names the view it is for, and another organisation's view is not found", async () => {
    const view = (await call(open, 'POST', '/v1/config/view', { name: 'Payments', query: 'payment' })).json;
    const channel = { integration: 'webhook', url: `${hooks.url}/test-view`, triggerlimit: 1, immediate: true };
    assert.equal((await call(open, 'POST', '/v1/alerts/test-channel', { channel, viewid: view.viewid })).json.ok, true);
    assert.equal(JSON.parse(hooksAt('/test-view')[0].body).name, 'Payments');
    const other = await open.createOrg('other-tester');
    const foreign = await request(`${open.url}/v1/alerts/test-channel`, {
      method: 'POST',
      headers: { servicekey: other.serviceKey, 'content-type': 'application/json' },
      body: JSON.stringify({ channel, viewid: view.viewid }),
    });
    assert.equal(foreign.status, 404);
    assert.equal(hooksAt('/test-view').length, 1);
  });

  test('an e-mail test is accepted by the SMTP server, with its reply code', async () => {
    const reply = await call(open, 'POST', '/v1/alerts/test-channel', { channel: { integration: 'email', emails: ['ops@example.com'], triggerlimit: 1, immediate: true } });
    assert.equal(reply.json.ok, true, reply.text);
    assert.equal(reply.json.status, 250);
    await eventually(() => smtp.messages.find((mail) => mail.text?.includes('test notification')), 5000, 'the test e-mail');
  });

  test('an invalid channel is refused with the validation envelope, naming the field', async () => {
    const reply = await call(open, 'POST', '/v1/alerts/test-channel', { channel: { integration: 'webhook', url: 'not a url', triggerlimit: 1, immediate: true } });
    assert.equal(reply.status, 400);
    assert.equal(reply.json.details[0].field, 'Webhook URL');
    assert.equal((await call(open, 'POST', '/v1/alerts/test-channel', {})).status, 400);
  });
});

describe('delivery history of a view', () => {
  test("lists only that view's deliveries, with each attempt's status code and the retries", async () => {
    const channel = (path: string) => ({ integration: 'webhook', url: `${hooks.url}${path}`, triggerlimit: 1, immediate: true });
    const first = (await call(open, 'POST', '/v1/config/view', { name: 'First', query: 'firstword', channels: [channel('/first')] })).json;
    const second = (await call(open, 'POST', '/v1/config/view', { name: 'Second', query: 'secondword', channels: [channel('/second')] })).json;
    hooks.answer(500);
    const ingest = (line: string) =>
      request(`${open.url}/logs/ingest?hostname=h`, { method: 'POST', headers: { apikey: open.org.ingestionKey, 'content-type': 'application/json' }, body: JSON.stringify({ lines: [{ line }] }) });
    assert.equal((await ingest('firstword')).status, 200);
    await eventually(() => (hooksAt('/first').length === 2 ? true : undefined), 5000, 'a retry and a delivery');
    assert.equal((await ingest('secondword')).status, 200);
    await eventually(() => (hooksAt('/second').length === 1 ? true : undefined), 5000, 'the second view delivered');
    const history = await eventually(async () => {
      const entries = (await call(open, 'GET', `/v1/alerts/deliveries?viewid=${first.viewid}`)).json;
      return entries.length === 1 && entries[0].status === 'delivered' ? entries : undefined;
    });
    assert.equal(history[0].viewid, first.viewid);
    assert.equal(history[0].retries, 1);
    assert.deepEqual(history[0].attempts.map((a: { outcome: string; status: number }) => [a.outcome, a.status]), [['will retry', 500], ['delivered', 200]]);
    const secondHistory = (await call(open, 'GET', `/v1/alerts/deliveries?viewid=${second.viewid}`)).json;
    assert.deepEqual(secondHistory.map((entry: { viewid: string }) => entry.viewid), [second.viewid]);
    assert.deepEqual((await call(open, 'GET', '/v1/alerts/deliveries?viewid=nosuchview')).json, []);
    assert.equal((await call(open, 'GET', '/v1/alerts/deliveries?viewid=')).status, 400);
  });
});

describe('warnings on save', () => {
  const email = { integration: 'email', emails: ['ops@example.com'], triggerlimit: 1, immediate: true };
  const webhook = (url: string) => ({ integration: 'webhook', url, triggerlimit: 1, immediate: true });

  test('a server with SMTP that allows internal webhooks answers without warnings', async () => {
    const created = await call(open, 'POST', '/v1/config/view', { name: 'Clean', query: 'x', channels: [email, webhook('http://127.0.0.1:9/hook')] });
    assert.equal(created.status, 200, created.text);
    assert.equal('warnings' in created.json, false);
  });
});
