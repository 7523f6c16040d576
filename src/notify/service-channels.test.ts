/**
 * Slack, Teams, OpsGenie and VictorOps channels end to end: views made over the config API (one
 * in the Terraform provider's slack_channel shape), lines ingested over HTTP, and what arrives at
 * real HTTP receivers on loopback standing in for each service, answering as the service
 * documents (Slack's 429 with Retry-After, its 404 `channel_not_found`). The alert clock is
 * injected, so auto-resolve windows end when the test says.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestServer, eventually, request, startTestServer } from '../testing/harness.js';
import { startHttpReceiver } from '../testing/receivers.js';
import { createSender } from './send.js';

const MINUTE = 60_000;
let clock = Math.ceil(Date.now() / 3_600_000) * 3_600_000 - 30 * MINUTE;
let server: TestServer;
let chat: Awaited<ReturnType<typeof startHttpReceiver>>;
let opsgenie: Awaited<ReturnType<typeof startHttpReceiver>>;
let victorops: Awaited<ReturnType<typeof startHttpReceiver>>;

before(async () => {
  [chat, opsgenie, victorops] = await Promise.all([startHttpReceiver(), startHttpReceiver(), startHttpReceiver()]);
  server = await startTestServer(
    {
      LOGSTEAD_PUBLIC_URL: 'https://logs.example.com',
      LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS: 'true',
      LOGSTEAD_DELIVERY_RETRY_BASE_MS: '20',
      LOGSTEAD_OPSGENIE_URL: `${opsgenie.url}/`,
      LOGSTEAD_VICTOROPS_URL: `${victorops.url}/integrations/generic/20131114/alert`,
    },
    { now: () => clock },
  );
});
after(async () => {
  await server.close();
  await Promise.all([chat.close(), opsgenie.close(), victorops.close()]);
});

async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = { servicekey: server.org.serviceKey }) {
  return request(`${server.url}${path}`, { method, headers: { ...headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
}
async function config(method: string, path: string, body?: unknown) {
  const reply = await api(method, path, body);
  assert.equal(reply.status, 200, reply.text);
  return reply.json;
}
async function ingest(lines: Array<Record<string, unknown>>) {
  const reply = await request(`${server.url}/logs/ingest?hostname=web-1`, { method: 'POST', headers: { apikey: server.org.ingestionKey, 'content-type': 'application/json' }, body: JSON.stringify({ lines }) });
  assert.equal(reply.status, 200, reply.text);
}
const at = (receiver: typeof chat, path: string) => receiver.received.filter((hit) => hit.path === path);
const arrived = (receiver: typeof chat, path: string, count = 1) => eventually(() => (at(receiver, path).length >= count ? at(receiver, path) : undefined), 8000, `${count} at ${path}`);
const deliveryOf = (viewid: string, status: string) =>
  eventually(async () => (await config('GET', `/v1/alerts/deliveries?viewid=${viewid}`)).find((entry: { status: string }) => entry.status === status), 8000, `a ${status} delivery`);

/** What the LogDNA Terraform provider sends for a `slack_channel` block: strings for booleans, empty unset options. */
const terraformSlack = (url: string) => ({ integration: 'slack', url, immediate: 'true', operator: 'presence', terminal: 'false', triggerinterval: 30, triggerlimit: 1, key: '', method: '', timezone: '', bodyTemplate: '' });

describe('Slack', () => {
  test("a view in the Terraform provider's slack_channel shape is accepted, and its alert arrives as a Block Kit message", async () => {
    const view = await config('POST', '/v1/config/view', { name: 'Checkout <errors>', query: 'slackword', channels: [terraformSlack(`${chat.url}/services/T1/B1/x`)] });
    assert.equal(view.channels[0].integration, 'slack');
    assert.equal(view.channels[0].triggerinterval, 30, 'the write dialect echoes a number');
    const read = await config('GET', `/v1/config/view/${view.viewid}`);
    assert.deepEqual(
      [read.channels[0].url, read.channels[0].immediate, read.channels[0].terminal, read.channels[0].triggerinterval],
      [`${chat.url}/services/T1/B1/x`, true, false, '30'],
    );
    await ingest([{ line: 'slackword: card <declined> & retried', level: 'error' }]);
    const [message] = await arrived(chat, '/services/T1/B1/x');
    assert.equal(message.headers['content-type'], 'application/json');
    const body = JSON.parse(message.body);
    assert.match(body.text, /^1 line matched view "Checkout <errors>": https:\/\/logs\.example\.com\/\?view=/);
    assert.deepEqual(body.blocks.map((block: { type: string }) => block.type), ['header', 'section', 'section', 'actions']);
    assert.match(body.blocks[1].text.text, /^\*1\* matching line in <https:\/\/logs\.example\.com\/\?view=[^|]+\|Checkout &lt;errors&gt;>/);
    assert.equal(body.blocks[2].text.text, '```slackword: card &lt;declined&gt; &amp; retried```');
    assert.match(body.blocks[3].elements[0].url, new RegExp(`view=${view.viewid}`));
    assert.equal((await deliveryOf(view.viewid, 'delivered')).integration, 'slack');
  });

  test('a colour puts the blocks in an attachment with that colour bar', async () => {
    await config('POST', '/v1/config/view', { name: 'Coloured', query: 'colourword', channels: [{ integration: 'slack', url: `${chat.url}/services/colour`, color: '#d4b135', triggerlimit: 1, immediate: true }] });
    await ingest([{ line: 'colourword' }]);
    const body = JSON.parse((await arrived(chat, '/services/colour'))[0].body);
    assert.equal(body.attachments[0].color, '#d4b135');
    assert.equal(body.attachments[0].blocks[0].type, 'header');
    assert.ok(body.text);
  });

  test('429 with Retry-After is tried again after that wait, then delivered', async () => {
    const slack = await startHttpReceiver([{ status: 429, body: 'rate_limited', headers: { 'retry-after': '1' } }]);
    try {
      const view = await config('POST', '/v1/config/view', { name: 'Limited', query: 'limitword', channels: [{ integration: 'slack', url: `${slack.url}/services/limited`, triggerlimit: 1, immediate: true }] });
      await ingest([{ line: 'limitword' }]);
      const [first, second] = await arrived(slack, '/services/limited', 2);
      // The outbox's own backoff here is 20 ms: only the Retry-After explains a wait of a second.
      assert.ok(second.at - first.at >= 950, `retried after ${second.at - first.at} ms`);
      const entry = await deliveryOf(view.viewid, 'delivered');
      assert.deepEqual(entry.attempts.map((a: { outcome: string; status: number }) => [a.outcome, a.status]), [['will retry', 429], ['delivered', 200]]);
    } finally {
      await slack.close();
    }
  });

  test('404 channel_not_found is a failure for good, recorded with that reason', async () => {
    const slack = await startHttpReceiver([{ status: 404, body: 'channel_not_found' }]);
    try {
      const view = await config('POST', '/v1/config/view', { name: 'Gone channel', query: 'goneword', channels: [{ integration: 'slack', url: `${slack.url}/services/gone`, triggerlimit: 1, immediate: true }] });
      await ingest([{ line: 'goneword' }]);
      const entry = await deliveryOf(view.viewid, 'failed');
      assert.deepEqual(entry.attempts.map((a: { outcome: string; detail: string }) => [a.outcome, a.detail]), [['failed', 'HTTP 404: channel_not_found']]);
      assert.equal(entry.target, `${slack.url}/********`, 'the incoming-webhook address is not shown in the log');
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(at(slack, '/services/gone').length, 1, 'not tried again');
    } finally {
      await slack.close();
    }
  });

  test('an internal address is refused unless allowed, without connecting, as for webhooks', async () => {
    const slack = await startHttpReceiver();
    try {
      const send = createSender({ mail: async () => ({ ok: true, retry: false, detail: '' }), allowPrivateWebhooks: false });
      const result = await send({ integration: 'slack', url: `${slack.url}/services/x`, method: 'POST', headers: {}, body: '{}' });
      assert.deepEqual([result.ok, result.retry], [false, false]);
      assert.match(result.detail, /internal/);
      assert.equal(slack.connections(), 0);
    } finally {
      await slack.close();
    }
  });
});

describe('Teams', () => {
  test('an alert arrives as a message with one Adaptive Card', async () => {
    const view = await config('POST', '/v1/config/view', { name: 'Teams view', query: 'teamsword', channels: [{ integration: 'teams', url: `${chat.url}/workflows/teams`, triggerlimit: 1, immediate: true }] });
    await ingest([{ line: 'teamsword happened', level: 'warn' }]);
    const body = JSON.parse((await arrived(chat, '/workflows/teams'))[0].body);
    assert.equal(body.type, 'message');
    assert.equal(body.attachments[0].contentType, 'application/vnd.microsoft.card.adaptive');
    const card = body.attachments[0].content;
    assert.equal(card.type, 'AdaptiveCard');
    assert.equal(card.body[0].text, '1 line matched view "Teams view"');
    assert.deepEqual(card.body[1].facts.slice(0, 2), [{ title: 'View', value: 'Teams view' }, { title: 'Matches', value: '1' }]);
    assert.equal(card.body[2].text, 'teamsword happened');
    assert.equal(card.actions[0].type, 'Action.OpenUrl');
    assert.match(card.actions[0].url, new RegExp(`view=${view.viewid}`));
  });
});

describe('OpsGenie and VictorOps', () => {
  test('OpsGenie: the alert opens with the GenieKey and one alias per view and channel, and closes on auto-resolve', async () => {
    const channel = { integration: 'opsgenie', key: 'genie-s3cret', region: 'eu', triggerlimit: 2, triggerinterval: '1m', immediate: true, terminal: false, autoresolve: 'true', autoresolveinterval: '5m', autoresolvelimit: 3 };
    const view = await config('POST', '/v1/config/view', { name: 'Genie', query: 'genieword', channels: [channel] });
    const alias = `logstead-${view.viewid}-${view.channels[0].alertid}`;
    await ingest([{ line: 'genieword one', level: 'error' }, { line: 'genieword two', level: 'error' }]);
    const [opened] = await arrived(opsgenie, '/v2/alerts');
    assert.equal(opened.headers.authorization, 'GenieKey genie-s3cret');
    const alert = JSON.parse(opened.body);
    assert.deepEqual([alert.alias, alert.priority, alert.message, alert.source], [alias, 'P2', '2 lines matched view "Genie"', 'Logstead']);
    assert.match(alert.description, /^genieword one\ngenieword two\n\nhttps:\/\/logs\.example\.com\/\?view=/);
    // Still noisy: the first five minutes see three more lines, which is not under the limit of 3.
    clock += MINUTE;
    await ingest([{ line: 'genieword three' }, { line: 'genieword four' }, { line: 'genieword five' }]);
    clock += 5 * MINUTE;
    await server.running.alerts.tick();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const closePath = `/v2/alerts/${alias}/close?identifierType=alias`;
    assert.equal(at(opsgenie, closePath).length, 0, 'three lines in the window: not resolved');
    // Quiet: the next five minutes see none.
    clock += 5 * MINUTE;
    await server.running.alerts.tick();
    await server.running.alerts.tick();
    const [closed] = await arrived(opsgenie, closePath);
    assert.equal(closed.headers.authorization, 'GenieKey genie-s3cret');
    assert.equal(JSON.parse(closed.body).source, 'Logstead');
    clock += 10 * MINUTE;
    await server.running.alerts.tick();
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(at(opsgenie, closePath).length, 1, 'closed once');
    const log = await config('GET', `/v1/alerts/deliveries?viewid=${view.viewid}`);
    // The second minute's lines fired again: the same alias, so OpsGenie counts it on the open alert.
    assert.deepEqual(log.map((entry: { kind: string; integration: string }) => `${entry.integration}:${entry.kind}`).sort(), ['opsgenie:immediate', 'opsgenie:immediate', 'opsgenie:resolve']);
    assert.deepEqual(at(opsgenie, '/v2/alerts').map((hit) => JSON.parse(hit.body).alias), [alias, alias]);
  });

  test('VictorOps: CRITICAL to {base}/{key}/{routing key}, then RECOVERY with the same entity_id', async () => {
    const channel = { integration: 'victorops', key: 'vo-s3cret', routingkey: 'payments', triggerlimit: 1, triggerinterval: '30', immediate: true, terminal: false, autoresolve: true, autoresolveinterval: '1m', autoresolvelimit: 1 };
    const view = await config('POST', '/v1/config/view', { name: 'Victor', query: 'victorword', channels: [channel] });
    const path = '/integrations/generic/20131114/alert/vo-s3cret/payments';
    await ingest([{ line: 'victorword down', level: 'fatal' }]);
    const [critical] = await arrived(victorops, path);
    const first = JSON.parse(critical.body);
    assert.deepEqual([first.message_type, first.entity_id, first.monitoring_tool], ['CRITICAL', `logstead-${view.viewid}-${view.channels[0].alertid}`, 'Logstead']);
    assert.match(first.state_message, /victorword down/);
    clock += 2 * MINUTE;
    await server.running.alerts.tick();
    const [, recovery] = await arrived(victorops, path, 2);
    const second = JSON.parse(recovery.body);
    assert.deepEqual([second.message_type, second.entity_id], ['RECOVERY', first.entity_id]);
    const entry = await eventually(async () => (await config('GET', `/v1/alerts/deliveries?viewid=${view.viewid}`)).find((d: { kind: string; status: string }) => d.kind === 'resolve' && d.status === 'delivered'));
    assert.equal(entry.target, `${victorops.url}/integrations/generic/20131114/alert/********/payments`, 'the key in the path is masked in the log');
  });
});

describe('reading and writing the new channels', () => {
  test('keys and Slack/Teams addresses are masked for a readonly member, and the mask sent back keeps them', async () => {
    const channels = [
      { integration: 'slack', url: 'https://hooks.slack.com/services/T0/B0/s3cret', triggerlimit: 1, immediate: true },
      { integration: 'teams', url: 'https://prod.westeurope.logic.azure.com/workflows/s3cret', triggerlimit: 1, immediate: true },
      { integration: 'opsgenie', key: 'genie-s3cret', triggerlimit: 1, immediate: true },
      { integration: 'victorops', key: 'vo-s3cret', routingkey: 'ops', triggerlimit: 1, immediate: true },
    ];
    const view = await config('POST', '/v1/config/view', { name: 'Masked', query: 'maskword', channels });
    const preset = await config('POST', '/v1/config/presetalert', { name: 'Masked preset', channels });
    const readonly = await server.signInAs('reader@example.com', 'readonly');
    const masked = (await api('GET', `/v1/config/view/${view.viewid}`, undefined, readonly.headers())).json.channels;
    assert.deepEqual(masked.map((c: { url?: string; key?: string }) => c.url ?? c.key), ['********', '********', '********', '********']);
    assert.equal(masked[3].routingkey, 'ops', 'a routing key names a team; it is not a secret');
    const presetRead = (await api('GET', `/v1/config/presetalert/${preset.presetid}`, undefined, readonly.headers())).json;
    assert.ok(!JSON.stringify(presetRead).includes('s3cret'), JSON.stringify(presetRead));
    assert.ok(!JSON.stringify((await api('GET', '/v1/config/view', undefined, readonly.headers())).json).includes('s3cret'));
    await config('PUT', `/v1/config/view/${view.viewid}`, { name: 'Masked', query: 'maskword', channels: masked });
    const kept = (await config('GET', `/v1/config/view/${view.viewid}`)).channels;
    assert.deepEqual(kept.map((c: { url?: string; key?: string }) => c.url ?? c.key), [channels[0].url, channels[1].url, 'genie-s3cret', 'vo-s3cret']);
    const orphan = await api('POST', '/v1/config/view', { name: 'Orphan mask', query: 'x', channels: [{ integration: 'slack', url: '********', triggerlimit: 1, immediate: true }] });
    assert.equal(orphan.status, 400, orphan.text);
    assert.match(orphan.json.error, /"channels\[0\]\.url" is the mask/);
  });

  test("bad input is a 400 in the config API's dialect", async () => {
    const refused = async (channel: Record<string, unknown>, message: RegExp) => {
      const reply = await api('POST', '/v1/config/view', { name: 'Bad', query: 'x', channels: [{ triggerlimit: 1, immediate: true, ...channel }] });
      assert.equal(reply.status, 400, reply.text);
      assert.match(reply.json.error, message);
      assert.equal(reply.json.code, 'BadRequest');
    };
    await refused({ integration: 'opsgenie', key: 'k', region: 'mars' }, /"channels\[0\]\.region" must be one of \[us, eu\]/);
    await refused({ integration: 'opsgenie' }, /"channels\[0\]\.key" is required/);
    await refused({ integration: 'victorops', key: 'k' }, /"channels\[0\]\.routingkey" is required/);
    await refused({ integration: 'slack' }, /"channels\[0\]\.url" is required/);
    await refused({ integration: 'slack', url: 'not a url' }, /"channels\[0\]\.url" must be a valid uri/);
    await refused({ integration: 'slack', url: 'https://hooks.slack.com/x', color: 'yellow' }, /"channels\[0\]\.color" must be a colour/);
    await refused({ integration: 'victorops', key: 'k', routingkey: 'r', autoresolve: true }, /"channels\[0\]\.autoresolveinterval" is required/);
    await refused({ integration: 'slack', url: 'https://hooks.slack.com/x', autoresolve: true }, /"channels\[0\]\.autoresolve" is not allowed/);
  });
});
