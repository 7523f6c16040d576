import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { type TestServer, startTestServer } from '../testing/harness.js';

/** LOGSTEAD_TRUST_PROXY names the balancer (127.0.0.1 here); 127.0.0.2 plays a client that reaches the port directly. */
let server: TestServer;
before(async () => {
  server = await startTestServer({ LOGSTEAD_SIGNIN_FAILURES_PER_ADDRESS: '2', LOGSTEAD_SIGNIN_FAILURES_PER_MINUTE: '100', LOGSTEAD_TRUST_PROXY: '127.0.0.1' });
});
after(() => server.close());

/** A sign-in sent from the loopback address `from`, with the X-Forwarded-For a proxy would add. */
function signIn(serviceKey: string, from: string, forwardedFor: string): Promise<number> {
  const url = new URL('/api/session', server.url);
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      url,
      { method: 'POST', localAddress: from, headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor } },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(JSON.stringify({ serviceKey }));
  });
}

test('behind the trusted proxy each client is counted by its forwarded address', async () => {
  for (let i = 0; i < 2; i++) assert.equal(await signIn('wrong-key', '127.0.0.1', '203.0.113.5'), 401);
  assert.equal(await signIn(server.org.serviceKey, '127.0.0.1', '203.0.113.5'), 429, 'the guessing client waits');
  assert.equal(await signIn(server.org.serviceKey, '127.0.0.1', '203.0.113.6'), 200, 'another client behind the same proxy does not');
});

test('a client that is not the trusted proxy cannot choose its address with the header', async () => {
  for (let i = 0; i < 2; i++) assert.equal(await signIn('wrong-key', '127.0.0.2', `198.51.100.${i}`), 401);
  assert.equal(await signIn(server.org.serviceKey, '127.0.0.2', '198.51.100.9'), 429, 'counted by its own address, whatever it forwards');
});
