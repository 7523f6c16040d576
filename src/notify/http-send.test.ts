import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startHttpReceiver } from '../testing/receivers.js';
import { renderBodyTemplate } from './body-template.js';
import { httpSend } from './http-send.js';
import { isInternalAddress } from './private-address.js';

let receiver: Awaited<ReturnType<typeof startHttpReceiver>>;
before(async () => {
  receiver = await startHttpReceiver();
});
after(() => receiver.close());

test('internal addresses are recognised, public ones are not', () => {
  for (const address of ['127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', 'not-an-ip']) {
    assert.ok(isInternalAddress(address), address);
  }
  for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '172.32.0.1']) assert.ok(!isInternalAddress(address), address);
});

test('a webhook to an internal address is refused, without retry, unless the operator allows it', async () => {
  for (const url of [`${receiver.url}/x`, receiver.url.replace('127.0.0.1', 'localhost') + '/x']) {
    const refused = await httpSend({ url, method: 'POST', headers: {}, body: '{}' }, false);
    assert.equal(refused.ok, false);
    assert.equal(refused.retry, false);
    assert.match(refused.detail, /internal address; set LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS=true/);
  }
  assert.equal(receiver.received.length, 0, 'nothing reached the internal service');
  const allowed = await httpSend({ url: `${receiver.url}/x`, method: 'POST', headers: {}, body: '{}' }, true);
  assert.deepEqual(allowed, { ok: true, retry: false, detail: 'HTTP 200' });
});

test('5xx and 429 are retried, other 4xx are not, and a closed port is a network error to retry', async () => {
  receiver.answer(500, 429, 404);
  const send = () => httpSend({ url: `${receiver.url}/y`, method: 'PUT', headers: {}, body: 'x' }, true);
  assert.deepEqual(await send(), { ok: false, retry: true, detail: 'HTTP 500' });
  assert.deepEqual(await send(), { ok: false, retry: true, detail: 'HTTP 429' });
  assert.deepEqual(await send(), { ok: false, retry: false, detail: 'HTTP 404' });
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
