/**
 * Alerts aimed at internal addresses, end to end, on a server that does not allow them: lines
 * ingested over HTTP fire a webhook and a page at real receivers on loopback, which must see
 * nothing, and the delivery log says why, after one attempt.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestServer, eventually, request, startTestServer } from '../testing/harness.js';
import { startHttpReceiver } from '../testing/receivers.js';

let server: TestServer;
let hooks: Awaited<ReturnType<typeof startHttpReceiver>>;
let pager: Awaited<ReturnType<typeof startHttpReceiver>>;

before(async () => {
  hooks = await startHttpReceiver();
  pager = await startHttpReceiver();
  // The paging endpoint is spelled as a decimal address, the webhook as IPv4-mapped IPv6: both are loopback.
  server = await startTestServer({ LOGSTEAD_PAGING_URL: `http://2130706433:${pager.port}/v2/enqueue`, LOGSTEAD_DELIVERY_RETRY_BASE_MS: '20' });
});
after(async () => {
  await server.close();
  await Promise.all([hooks.close(), pager.close()]);
});

async function call(method: string, path: string, body?: unknown, key: Record<string, string> = { servicekey: server.org.serviceKey }) {
  const reply = await request(`${server.url}${path}`, {
    method,
    headers: { ...key, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  assert.equal(reply.status, 200, reply.text);
  return reply.json;
}

test('webhooks and pages to internal addresses fail at once, name the setting that allows them, and reach nothing', async () => {
  const view = await call('POST', '/v1/config/view', {
    name: 'Internal',
    query: 'internalword',
    channels: [
      { integration: 'webhook', url: `http://[::ffff:127.0.0.1]:${hooks.port}/hook`, triggerlimit: 1, immediate: true },
      { integration: 'incidentpaging', key: 'routing-key', triggerlimit: 1, immediate: true },
    ],
  });
  await call('POST', '/logs/ingest?hostname=web-1', { lines: [{ line: 'internalword' }] }, { apikey: server.org.ingestionKey });
  const failed = await eventually(async () => {
    const log = (await call('GET', '/v1/alerts/deliveries')).filter((entry: { viewid: string; status: string }) => entry.viewid === view.viewid);
    return log.length === 2 && log.every((entry: { status: string }) => entry.status === 'failed') ? log : undefined;
  }, 5000, 'both deliveries failed');
  for (const entry of failed) {
    assert.equal(entry.attempts.length, 1, `${entry.integration}: not retried`);
    assert.equal(entry.attempts[0].outcome, 'failed');
    assert.match(entry.attempts[0].detail, /^(::ffff:7f00:1|127\.0\.0\.1) is an internal .*set LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS=true to allow it$/);
  }
  assert.deepEqual(failed.map((entry: { integration: string }) => entry.integration).sort(), ['incidentpaging', 'webhook']);
  assert.equal(hooks.connections() + pager.connections(), 0, 'nothing connected to either receiver');
});
