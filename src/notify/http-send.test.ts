import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { startHttpReceiver } from '../testing/receivers.js';
import { renderBodyTemplate } from './body-template.js';
import { httpSend, retryAfterMs } from './http-send.js';

let receiver: Awaited<ReturnType<typeof startHttpReceiver>>;
before(async () => {
  receiver = await startHttpReceiver();
});
after(() => receiver.close());

/** The receiver on 127.0.0.1, spelled every way a URL can spell loopback. */
const loopbackSpellings = (port: number) =>
  ['127.0.0.1', '2130706433', '0x7f000001', '0x7f.1', '0177.0.0.1', '127.1', '0', '[::1]', '[::]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[0:0:0:0:0:ffff:127.0.0.1]', '[::127.0.0.1]', '[::7f00:1]', '[::ffff:0:127.0.0.1]', '[64:ff9b::127.0.0.1]', '[2002:7f00:1::]'].map(
    (host) => `http://${host}:${port}/x`,
  );
const post = (url: string, allowInternal: boolean) => httpSend({ url, method: 'POST', headers: {}, body: '{}' }, allowInternal);

function assertRefused(result: { ok: boolean; retry: boolean; detail: string }, url: string) {
  assert.equal(result.ok, false, url);
  assert.equal(result.retry, false, `${url}: a refusal is permanent`);
  assert.match(result.detail, /internal \(loopback, private or reserved\) address; set LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS=true to allow it$/, url);
}

test('a webhook to any spelling of loopback is refused without a connection, and without retry', async () => {
  const connections = receiver.connections();
  for (const url of loopbackSpellings(receiver.port)) assertRefused(await post(url, false), url);
  assert.equal(receiver.connections(), connections, 'nothing connected to the loopback receiver');
  assert.equal(receiver.received.length, 0);
  // The spellings that the system can connect to do reach the receiver when allowed: the refusal above is what stopped them.
  for (const host of ['2130706433', '0x7f.1', '0177.0.0.1', '127.1', '[::ffff:127.0.0.1]', 'localhost']) {
    assert.deepEqual(await post(`http://${host}:${receiver.port}/allowed`, true), { ok: true, retry: false, detail: 'HTTP 200', status: 200 }, host);
  }
  assert.equal(receiver.received.length, 6);
});

test('a name that resolves to loopback is refused when the socket connects, over http and https', async () => {
  // Allowed first, so a kept-alive socket to localhost sits in the shared pool: the refused requests must not reuse it.
  assert.equal((await post(`http://localhost:${receiver.port}/first`, true)).ok, true);
  const connections = receiver.connections();
  const received = receiver.received.length;
  for (const url of [`http://localhost:${receiver.port}/x`, `https://localhost:${receiver.port}/x`]) {
    const refused = await post(url, false);
    assertRefused(refused, url);
    assert.match(refused.detail, /^localhost resolves to 127\.0\.0\.1, which is an internal/);
  }
  assert.equal(receiver.connections(), connections, 'no new connection to the loopback receiver');
  assert.equal(receiver.received.length, received, 'no request over the kept-alive socket either');
});

test('a redirect is not followed: it is the answer', async () => {
  const bouncer = http.createServer((_request, response) => response.writeHead(302, { location: `${receiver.url}/bounced` }).end());
  await new Promise<void>((resolve) => bouncer.listen(0, '127.0.0.1', resolve));
  try {
    const result = await post(`http://127.0.0.1:${(bouncer.address() as AddressInfo).port}/`, true);
    assert.deepEqual(result, { ok: false, retry: false, detail: 'HTTP 302', status: 302 });
    assert.ok(!receiver.received.some((hook) => hook.path === '/bounced'), 'the redirect target was not requested');
  } finally {
    bouncer.closeAllConnections();
    await new Promise((resolve) => bouncer.close(resolve));
  }
});

test('5xx and 429 are retried, other 4xx are not, and a closed port is a network error to retry', async () => {
  receiver.answer(500, 429, 404, { status: 429, body: 'rate_limited', headers: { 'retry-after': '7' } });
  const send = () => httpSend({ url: `${receiver.url}/y`, method: 'PUT', headers: {}, body: 'x' }, true);
  // A refusal keeps the start of its answer, where Slack and the others say why.
  assert.deepEqual(await send(), { ok: false, retry: true, detail: 'HTTP 500', status: 500, answer: '{}' });
  assert.deepEqual(await send(), { ok: false, retry: true, detail: 'HTTP 429', status: 429, answer: '{}' });
  assert.deepEqual(await send(), { ok: false, retry: false, detail: 'HTTP 404', status: 404, answer: '{}' });
  assert.deepEqual(await send(), { ok: false, retry: true, detail: 'HTTP 429', status: 429, answer: 'rate_limited', retryAfterMs: 7000 });
  assert.equal(retryAfterMs(new Date(Date.UTC(2030, 0, 1, 0, 0, 30)).toUTCString(), Date.UTC(2030, 0, 1)), 30_000, 'Retry-After as an HTTP date');
  assert.equal(retryAfterMs('soon'), undefined);
  const closed = await httpSend({ url: 'http://127.0.0.1:1/', method: 'POST', headers: {} }, true);
  assert.equal(closed.retry, true);
  assert.match(closed.detail, /ECONNREFUSED/);
});

test('body templates: tokens with or without spaces, paths, and whole-string objects', () => {
  const context = { name: 'v', matches: 3, line_objects: [{ a: 1 }, { a: 2 }], first_line_object: { a: 1, b: { c: 'deep' } } };
  assert.deepEqual(
    renderBodyTemplate(
      { t: '{{name}} has {{ matches }}', all: '{{ line_objects }}', one: '{{first_line_object}}', path: '{{ first_line_object.b.c }}', index: '{{ line_objects[1].a }}', inline: 'x {{ line_objects }}', nested: [{ n: '{{ name }}' }], keep: 7 },
      context,
    ),
    { t: 'v has 3', all: [{ a: 1 }, { a: 2 }], one: { a: 1, b: { c: 'deep' } }, path: 'deep', index: '2', inline: 'x [{"a":1},{"a":2}]', nested: [{ n: 'v' }], keep: 7 },
  );
});
