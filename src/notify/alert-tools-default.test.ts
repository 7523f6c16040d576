/**
 * "Send test" and the warnings on save on a default installation: no SMTP server, and internal
 * webhook addresses not allowed. A real receiver on loopback must see nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestServer, request, startTestServer } from '../testing/harness.js';
import { startHttpReceiver } from '../testing/receivers.js';

let strict: TestServer;
let hooks: Awaited<ReturnType<typeof startHttpReceiver>>;

before(async () => {
  hooks = await startHttpReceiver();
  strict = await startTestServer();
});
after(async () => {
  await strict.close();
  await hooks.close();
});

function call(server: TestServer, method: string, path: string, body?: unknown) {
  return request(`${server.url}${path}`, {
    method,
    headers: { servicekey: server.org.serviceKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

describe('send test', () => {
  test('without the allowance an internal webhook is refused as deliveries are, and e-mail without SMTP says so', async () => {
    const before = hooks.received.length;
    const webhook = await call(strict, 'POST', '/v1/alerts/test-channel', { channel: { integration: 'webhook', url: `${hooks.url}/refused`, triggerlimit: 1, immediate: true } });
    assert.equal(webhook.json.ok, false);
    assert.equal(webhook.json.status, null);
    assert.match(webhook.json.detail, /internal .*LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS/);
    assert.equal(hooks.received.length, before, 'nothing was sent');
    const email = await call(strict, 'POST', '/v1/alerts/test-channel', { channel: { integration: 'email', emails: ['ops@example.com'], triggerlimit: 1, immediate: true } });
    assert.deepEqual(email.json, { ok: false, status: null, detail: 'LOGSTEAD_SMTP_URL is not set, so e-mail cannot be sent' });
  });

});

describe('warnings on save', () => {
  const email = { integration: 'email', emails: ['ops@example.com'], triggerlimit: 1, immediate: true };
  const webhook = (url: string) => ({ integration: 'webhook', url, triggerlimit: 1, immediate: true });

  test('e-mail without SMTP and webhooks to internal addresses are saved, with a warning for each', async () => {
    const body = { name: 'Warned', query: 'x', channels: [email, webhook('https://hooks.example.com/ok'), webhook('http://127.0.0.1:9/hook'), webhook('http://localhost:9/hook')] };
    const created = await call(strict, 'POST', '/v1/config/view', body);
    assert.equal(created.status, 200, created.text);
    assert.ok(created.json.viewid, 'the view is saved');
    assert.deepEqual(created.json.warnings.map((w: { channel: number; code: string }) => [w.channel, w.code]), [[0, 'smtp-not-configured'], [2, 'internal-address'], [3, 'internal-address']]);
    assert.match(created.json.warnings[2].message, /LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS/);
    const replaced = await call(strict, 'PUT', `/v1/config/view/${created.json.viewid}`, { ...body, channels: [webhook('http://[::1]:9/')] });
    assert.deepEqual(replaced.json.warnings.map((w: { code: string }) => w.code), ['internal-address']);
  });

});
