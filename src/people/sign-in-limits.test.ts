import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { type TestServer, request, startTestServer } from '../testing/harness.js';

let server: TestServer;
before(async () => {
  server = await startTestServer({ LOGSTEAD_SIGNIN_FAILURES_PER_ADDRESS: '3', LOGSTEAD_SIGNIN_FAILURES_PER_MINUTE: '5' });
});
after(() => server.close());

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: any;
}

/** A sign-in sent from `from`, one of the loopback addresses (Linux answers all of 127.0.0.0/8). */
function signIn(serviceKey: string, from: string): Promise<Answer> {
  const url = new URL('/api/session', server.url);
  return new Promise((resolve, reject) => {
    const outgoing = http.request(url, { method: 'POST', localAddress: from, headers: { 'content-type': 'application/json' } }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, retryAfter: response.headers['retry-after'] as string | undefined, body: JSON.parse(text) }));
    });
    outgoing.on('error', reject);
    outgoing.end(JSON.stringify({ serviceKey }));
  });
}

test('right keys are never counted; wrong keys from one address are, until it must wait', async () => {
  for (let i = 0; i < 6; i++) assert.equal((await signIn(server.org.serviceKey, '127.0.0.1')).status, 200, `sign-in ${i + 1}`);
  for (let i = 0; i < 3; i++) assert.equal((await signIn('wrong-key', '127.0.0.1')).status, 401);

  // Right keys wait too: answering them would tell a guesser which guess was right.
  for (const key of ['wrong-key', server.org.serviceKey]) {
    const limited = await signIn(key, '127.0.0.1');
    assert.equal(limited.status, 429);
    assert.equal(limited.body.code, 'TooManyRequests');
    assert.match(limited.body.error, /Too many failed sign-ins; retry in \d+ s/);
    const seconds = Number(limited.retryAfter);
    assert.ok(Number.isInteger(seconds) && seconds >= 1 && seconds <= 15 * 60, `Retry-After: ${limited.retryAfter}`);
    assert.equal(limited.body.retryAfter, seconds);
  }

  assert.equal((await signIn(server.org.serviceKey, '127.0.0.2')).status, 200, 'another address is not affected');
  const withKey = await request(`${server.url}/v2/export?from=0&to=1`, { headers: { servicekey: server.org.serviceKey } });
  assert.equal(withKey.status, 200, 'API calls with a key are not sign-ins');
});

test('wrong keys from all addresses together have a budget per minute', async () => {
  // 3 failures so far; two more from a second address use up the budget of 5.
  for (let i = 0; i < 2; i++) assert.equal((await signIn('wrong-key', '127.0.0.2')).status, 401);
  const limited = await signIn(server.org.serviceKey, '127.0.0.3');
  assert.equal(limited.status, 429, 'a fresh address waits once the overall budget is spent');
  const seconds = Number(limited.retryAfter);
  assert.ok(seconds >= 1 && seconds <= 60, `Retry-After: ${limited.retryAfter}`);
});
