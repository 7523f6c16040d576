import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestServer, request, startTestServer } from '../testing/harness.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

function policy(headers: Headers): Map<string, string[]> {
  const csp = headers.get('content-security-policy');
  assert.ok(csp, 'a Content-Security-Policy header');
  return new Map(
    csp
      .split(';')
      .map((directive) => directive.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...values]) => [name, values]),
  );
}

function assertBrowserHeaders(headers: Headers, what: string) {
  const csp = policy(headers);
  assert.deepEqual(csp.get('script-src'), ["'self'"], `${what}: scripts only from this server`);
  assert.deepEqual(csp.get('frame-ancestors'), ["'none'"], what);
  assert.deepEqual(csp.get('connect-src'), ["'self'"], what);
  assert.ok(![...csp.values()].flat().includes("'unsafe-inline'"), `${what}: nothing inline`);
  assert.ok(![...csp.values()].flat().includes("'unsafe-eval'"), what);
  assert.equal(csp.has('upgrade-insecure-requests'), false, `${what}: plain-HTTP installs keep working`);
  assert.equal(headers.get('x-content-type-options'), 'nosniff', what);
  assert.equal(headers.get('referrer-policy'), 'no-referrer', what);
  assert.equal(headers.get('x-frame-options'), 'DENY', what);
  assert.equal(headers.get('strict-transport-security'), null, `${what}: no HSTS for an http:// server`);
}

test('the viewer page carries the security headers', async () => {
  for (const path of ['/', '/?view=abc', '/some/viewer/address']) {
    const page = await request(`${server.url}${path}`);
    assert.equal(page.status, 200, path);
    assert.match(page.text, /<div id="root">/);
    assertBrowserHeaders(page.headers, path);
  }
});

test('API answers carry them too, errors included', async () => {
  const answers = [
    await request(`${server.url}/healthz`),
    await request(`${server.url}/v2/export?from=0&to=1`, { headers: { servicekey: server.org.serviceKey } }),
    await request(`${server.url}/v2/export?from=0&to=1`),
    await request(`${server.url}/v1/no-such-route`),
    await request(`${server.url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' }),
  ];
  assert.deepEqual(
    answers.map((answer) => answer.status),
    [200, 200, 401, 404, 400],
  );
  for (const answer of answers) assertBrowserHeaders(answer.headers, answer.text.slice(0, 60));
});

test('the built page has no inline script or style for the policy to block', async () => {
  const page = (await request(`${server.url}/`)).text;
  const scripts = [...page.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
  assert.ok(scripts.length > 0);
  for (const [, attributes, body] of scripts) {
    assert.match(attributes, /\ssrc="\/assets\//, 'every script is a file of this server');
    assert.equal(body.trim(), '');
  }
  assert.doesNotMatch(page, /<style\b|\sstyle=|\son[a-z]+=/i);
});
