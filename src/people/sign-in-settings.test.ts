import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { type TestServer, request, startTestServer } from '../testing/harness.js';

/**
 * Sign-in settings on a server of their own (one log engine per process): service keys refused at
 * /api/session with LOGSTEAD_KEY_SIGN_IN=false, and failed password sign-ins limited per address.
 * The members API and the link flows are in members.test.ts.
 */

let strict: TestServer;
before(async () => {
  strict = await startTestServer({ LOGSTEAD_KEY_SIGN_IN: 'false', LOGSTEAD_SIGNIN_FAILURES_PER_ADDRESS: '3', LOGSTEAD_SIGNIN_FAILURES_PER_MINUTE: '100' });
});
after(() => strict?.close());

/** A sign-in from one of the loopback addresses (Linux answers all of 127.0.0.0/8). */
function signInFrom(from: string, body: unknown): Promise<{ status: number; retryAfter?: string; json: any }> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(new URL('/api/session', strict.url), { method: 'POST', localAddress: from, headers: { 'content-type': 'application/json' } }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, retryAfter: response.headers['retry-after'] as string | undefined, json: JSON.parse(text) }));
    });
    outgoing.on('error', reject);
    outgoing.end(JSON.stringify(body));
  });
}

test('LOGSTEAD_KEY_SIGN_IN=false refuses service keys at /api/session, and only there', async () => {
  const refused = await signInFrom('127.0.0.9', { serviceKey: strict.org.serviceKey });
  assert.equal(refused.status, 403);
  assert.match(refused.json.error, /LOGSTEAD_KEY_SIGN_IN=false/);
  assert.equal((await request(`${strict.url}/api/sign-in`)).json.serviceKey, false);
  assert.equal((await request(`${strict.url}/v1/config/view`, { headers: { servicekey: strict.org.serviceKey } })).status, 200, 'the key still works on the API');
  const withPassword = await strict.signInAs('ivan@example.com', 'admin');
  assert.equal((await request(`${strict.url}/api/session`, { headers: { cookie: withPassword.cookie } })).json.role, 'admin', 'a password still signs in');
});

test('failed password sign-ins are limited per address: 429 with Retry-After, even for the right password', async () => {
  const hana = await strict.signInAs('hana@example.com', 'readonly');
  for (let i = 0; i < 3; i++) {
    const wrong = await signInFrom('127.0.0.5', { email: hana.email, password: `wrong guess ${i}` });
    assert.equal(wrong.status, 401, `guess ${i}`);
    assert.equal(wrong.json.error, 'Wrong e-mail or password.');
  }
  for (const password of ['wrong guess 4', hana.password]) {
    const limited = await signInFrom('127.0.0.5', { email: hana.email, password });
    assert.equal(limited.status, 429);
    const seconds = Number(limited.retryAfter);
    assert.ok(Number.isInteger(seconds) && seconds >= 1 && seconds <= 15 * 60, `Retry-After: ${limited.retryAfter}`);
    assert.equal(limited.json.retryAfter, seconds);
  }
  // Another client address is not affected.
  assert.equal((await signInFrom('127.0.0.6', { email: hana.email, password: hana.password })).status, 200);
  const audit = await request(`${strict.url}/v1/config/audit?resource=session&actor=hana@example.com`, { headers: { servicekey: strict.org.serviceKey } });
  assert.equal(audit.json.records.filter((record: { action: string }) => record.action === 'session.sign-in-failed').length, 3, 'the refused sign-ins were recorded, the limited ones were not attempts');
});
