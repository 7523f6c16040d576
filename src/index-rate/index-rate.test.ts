import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { NewAccount } from '../accounts/accounts.js';
import { type TestServer, eventually, request, startTestServer } from '../testing/harness.js';
import { startHttpReceiver, startSmtpReceiver } from '../testing/receivers.js';
import { IndexRateAlerts } from './config.js';
import { IndexRateMonitor } from './monitor.js';
import { Members } from '../people/members.js';

/**
 * The index-rate alert, as Mezmo's /v1/config/index-rate: validated as its Terraform provider sends
 * it, and fired through the real outbox to real SMTP and HTTP receivers, once per period, on a clock
 * the test moves. (Every node checks; across real nodes: ingestion-controls-cluster.test.ts.)
 */

const HOUR = 3_600_000;
/** The test's "now": the middle of an hour a few hours back, so every line is well inside the retention. */
let clock = Math.floor(Date.now() / HOUR) * HOUR - 3 * HOUR + 30 * 60_000;
const hourStart = () => Math.floor(clock / HOUR) * HOUR;
const hex = () => randomBytes(4).toString('hex');

let server: TestServer;
let hooks: Awaited<ReturnType<typeof startHttpReceiver>>;
let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;

before(async () => {
  hooks = await startHttpReceiver();
  smtp = await startSmtpReceiver();
  server = await startTestServer(
    { LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS: 'true', LOGSTEAD_SMTP_URL: smtp.url, LOGSTEAD_PAGING_URL: `${hooks.url}/pagerduty`, LOGSTEAD_DELIVERY_RETRY_BASE_MS: '200' },
    { now: () => clock },
  );
});
after(async () => {
  await server?.close();
  await hooks?.close();
  await smtp?.close();
});

const call = (org: NewAccount, method: string, body?: unknown) =>
  request(`${server.url}/v1/config/index-rate`, {
    method,
    headers: { servicekey: org.serviceKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** `count` lines at `ts` (default: now on the test's clock). */
async function ingest(org: NewAccount, count: number, ts = clock) {
  const lines = Array.from({ length: count }, (_, index) => ({ line: `line ${index}`, timestamp: ts }));
  const reply = await request(`${server.url}/logs/ingest?hostname=rate`, { method: 'POST', headers: { apikey: org.ingestionKey, 'content-type': 'application/json' }, body: JSON.stringify({ lines }) });
  assert.equal(reply.status, 200, reply.text);
}

const received = (path: string) => hooks.received.filter((hook) => hook.path === path);

/**
 * Checks every organisation's index rate now (as each node does every 10 s on its own, which may
 * beat the test to it: so the answer is read from what was recorded, not from who fired), and
 * says whether `org`'s alert has fired for the current period.
 */
async function firesNow(org: NewAccount, period = HOUR): Promise<boolean> {
  await server.running.indexRate.tick();
  const row = await server.running.db.selectFrom('index_rate_alerts').select('fired_period').where('account', '=', org.account).executeTakeFirst();
  return row?.fired_period === Math.floor(clock / period) * period;
}

describe('/v1/config/index-rate', () => {
  test("reads as off until set; PUT takes Mezmo's fields and reads back as written", async () => {
    const org = await server.createOrg(`rate ${hex()}`);
    assert.deepEqual((await call(org, 'GET')).json, {
      max_lines: null,
      max_z_score: null,
      threshold_alert: 'separate',
      frequency: 'hourly',
      enabled: false,
      channels: { email: [], pagerduty: [], slack: [], webhook: [] },
    });
    const body = {
      max_lines: 1000,
      max_z_score: 3,
      threshold_alert: 'both',
      frequency: 'daily',
      enabled: true,
      channels: { email: ['ops@example.com'], pagerduty: ['pd-key'], slack: ['https://hooks.slack.com/services/x'], webhook: [{ url: 'https://example.com/hook', method: 'PUT', headers: { 'x-team': 'ops' }, bodyTemplate: { n: '{{lines}}' } }] },
    };
    const put = await call(org, 'PUT', body);
    assert.equal(put.status, 200, put.text);
    const expected = { ...body, channels: { ...body.channels, webhook: [{ ...body.channels.webhook[0], bodyTemplate: '{"n":"{{lines}}"}' }] } };
    assert.deepEqual(put.json, expected);
    assert.deepEqual((await call(org, 'GET')).json, expected);
    // The JSON text GET answers is taken back as it is (Terraform re-sends what it read).
    assert.deepEqual((await call(org, 'PUT', (await call(org, 'GET')).json)).json, expected);
    // No DELETE: "removing" it is PUT with enabled false.
    assert.equal((await call(org, 'DELETE')).status, 404);
    assert.equal((await call(org, 'POST', body)).status, 404);
  });

  test('bad input gets a 400 in the config envelope and changes nothing', async () => {
    const org = await server.createOrg(`rate ${hex()}`);
    const good = { max_lines: 10, threshold_alert: 'separate', frequency: 'hourly', enabled: true, channels: { email: ['a@example.com'] } };
    assert.equal((await call(org, 'PUT', good)).status, 200);
    const before = (await call(org, 'GET')).json;
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{ ...good, threshold_alert: 'either' }, /"threshold_alert" must be one of \[separate, both\]/],
      [{ ...good, frequency: 'weekly' }, /"frequency" must be one of \[hourly, daily\]/],
      [{ ...good, max_lines: -1 }, /"max_lines"/],
      [{ ...good, max_lines: null }, /must contain at least one of \[max_lines, max_z_score\]/],
      [{ ...good, threshold_alert: 'both' }, /both needs max_lines and max_z_score/],
      [{ ...good, channels: { webhook: [{ url: 'https://example.com', method: 'PATCH' }] } }, /"channels.webhook\[0\].method" must be one of/],
      [{ ...good, channels: { webhook: [{ url: 'https://example.com', bodyTemplate: { n: '{{maxLines}}' } }] } }, /Invalid bodyTemplate: \{\{maxLines\}\} is not a valid token/],
      [{ ...good, channels: { email: ['not an address'] } }, /"channels.email\[0\]" must be a valid email/],
      [{ ...good, enabled: 'perhaps' }, /"enabled" must be a boolean/],
      [{ ...good, channels: { email: ['a@example.com'], sms: ['+15550100'] } }, /"channels.sms" is not allowed/],
      [{ max_lines: 10 }, /"threshold_alert" is required/],
    ];
    for (const [body, message] of bad) {
      const reply = await call(org, 'PUT', body);
      assert.equal(reply.status, 400, `${JSON.stringify(body)}: ${reply.text}`);
      assert.equal(reply.json.code, 'BadRequest');
      assert.match(reply.json.error, message);
    }
    assert.deepEqual((await call(org, 'GET')).json, before);
  });
});

describe('firing', () => {
  test('fires through e-mail, PagerDuty, Slack and webhooks once per period when the period passes max_lines', async () => {
    const org = await server.createOrg(`rate ${hex()}`);
    const route = `/${hex()}`;
    const put = await call(org, 'PUT', {
      max_lines: 5,
      threshold_alert: 'separate',
      frequency: 'hourly',
      enabled: true,
      channels: {
        email: [`rate${route.slice(1)}@example.com`],
        pagerduty: [`key${route.slice(1)}`],
        slack: [`${hooks.url}${route}/slack`],
        webhook: [{ url: `${hooks.url}${route}/hook`, method: 'POST', headers: { 'x-token': 'abc' }, bodyTemplate: { count: '{{ lines }}', limit: '{{max_lines}}', from: '{{period_start}}' } }],
      },
    });
    assert.equal(put.status, 200, put.text);
    await ingest(org, 5);
    assert.equal(await firesNow(org), false, 'five lines do not pass max_lines 5');
    await ingest(org, 1);
    assert.equal(await firesNow(org), true);
    const hook = await eventually(() => received(`${route}/hook`)[0], 10_000, 'the webhook');
    assert.deepEqual(JSON.parse(hook.body), { count: '6', limit: '5', from: new Date(hourStart()).toISOString() });
    assert.equal(hook.headers['x-token'], 'abc');
    const slack = await eventually(() => received(`${route}/slack`)[0], 10_000, 'the Slack message');
    assert.match(JSON.parse(slack.body).text, /^Index rate alert: 6 lines this hour, more than max_lines \(5\)/);
    // A Slack message, not a plain webhook: Block Kit with the summary as its header and a button back.
    const blocks = JSON.parse(slack.body).blocks;
    assert.equal(blocks[0].type, 'header');
    assert.match(blocks[0].text.text, /^Index rate alert: 6 lines this hour/);
    assert.equal(blocks.at(-1).elements[0].type, 'button');
    const paging = await eventually(() => received('/pagerduty').find((page) => page.body.includes(`key${route.slice(1)}`)), 10_000, 'the PagerDuty event');
    const event = JSON.parse(paging.body);
    assert.equal(event.event_action, 'trigger');
    assert.equal(event.payload.custom_details.lines, 6);
    const mail = await eventually(() => smtp.messages.find((message) => message.subject?.startsWith('Index rate alert') && JSON.stringify(message.to).includes(`rate${route.slice(1)}`)), 10_000, 'the e-mail');
    assert.match(mail.text ?? '', /6 lines this hour/);

    // Once per period: more lines in the same hour fire nothing more.
    await ingest(org, 10);
    await server.running.indexRate.tick();
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(received(`${route}/hook`).length, 1);
    // The next hour is a new period.
    clock += HOUR;
    try {
      assert.equal(await firesNow(org), false, 'the new hour has no lines yet');
      await ingest(org, 6);
      assert.equal(await firesNow(org), true);
      await eventually(() => (received(`${route}/hook`).length === 2 ? true : undefined), 10_000, 'the second hour fired');
    } finally {
      clock -= HOUR;
    }
  });

  test("fires on the period's z-score against the recent periods, alone (separate) or with max_lines (both)", async () => {
    const org = await server.createOrg(`rate ${hex()}`);
    const route = `/${hex()}`;
    const config = { max_z_score: 3, threshold_alert: 'separate', frequency: 'hourly', enabled: true, channels: { webhook: [{ url: `${hooks.url}${route}`, method: 'POST' }] } };
    assert.equal((await call(org, 'PUT', config)).status, 200);
    // Ten-ish lines an hour for the five hours before this one.
    for (const [back, count] of [[1, 10], [2, 12], [3, 11], [4, 9], [5, 10]]) await ingest(org, count, hourStart() - back * HOUR + 1000);
    await ingest(org, 12);
    assert.equal(await firesNow(org), false, 'a usual hour (z about 2.3, counting the empty hours) does not fire');
    // 'both' with a max_lines the hour does not pass: nothing, however unusual the hour.
    assert.equal((await call(org, 'PUT', { ...config, threshold_alert: 'both', max_lines: 100 })).status, 200);
    await ingest(org, 40);
    assert.equal(await firesNow(org), false);
    assert.equal((await call(org, 'PUT', { ...config, threshold_alert: 'both', max_lines: 50 })).status, 200);
    assert.equal(await firesNow(org), true, '52 lines pass both');
    const hook = await eventually(() => received(route)[0], 10_000, 'the webhook');
    const body = JSON.parse(hook.body);
    assert.equal(body.lines, 52);
    assert.ok(body.z_score > 3, hook.body);
    assert.match(body.summary, /more than max_lines \(50\) and a z-score of/);
  });

  test('an organisation without lines in the recent periods gets no z-score, and a disabled alert never fires', async () => {
    const org = await server.createOrg(`rate ${hex()}`);
    const route = `/${hex()}`;
    assert.equal((await call(org, 'PUT', { max_z_score: 1, threshold_alert: 'separate', frequency: 'hourly', enabled: true, channels: { webhook: [{ url: `${hooks.url}${route}` }] } })).status, 200);
    await ingest(org, 500);
    assert.equal(await firesNow(org), false);
    assert.equal((await call(org, 'PUT', { max_lines: 1, threshold_alert: 'separate', frequency: 'hourly', enabled: false, channels: { webhook: [{ url: `${hooks.url}${route}` }] } })).status, 200);
    assert.equal(await firesNow(org), false);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(received(route).length, 0);
  });

  test('several nodes checking at once fire a period once', async () => {
    const org = await server.createOrg(`rate ${hex()}`);
    const route = `/${hex()}`;
    assert.equal((await call(org, 'PUT', { max_lines: 1, threshold_alert: 'separate', frequency: 'daily', enabled: true, channels: { webhook: [{ url: `${hooks.url}${route}` }] } })).status, 200);
    await ingest(org, 3);
    // Four monitors on the one configuration database and store, as four nodes have.
    const { db, store, outbox } = server.running;
    const nodes = Array.from({ length: 4 }, () => new IndexRateMonitor({ db, alerts: new IndexRateAlerts(db), store, outbox, setters: new Members(db), messageSettings: () => ({ publicUrl: server.url, pagingUrl: `${hooks.url}/pagerduty` }), now: () => clock, log: console as never }));
    const fired = await Promise.all(nodes.map((node) => node.tick()));
    // At most one of them (none, if this server's own check came first).
    assert.ok(fired.reduce((sum, count) => sum + count, 0) <= 1, `fired ${fired}`);
    await eventually(() => received(route)[0], 10_000, 'the webhook');
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(received(route).length, 1);
  });
});
