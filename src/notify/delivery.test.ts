/**
 * Alerts end to end: lines ingested over HTTP, alerts configured over the config API, and what
 * arrives at a real SMTP server, webhook receiver and paging receiver on loopback. The alert clock
 * is injected, so windows close when the test says, not after real minutes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestServer, eventually, request, startTestServer } from '../testing/harness.js';
import { startHttpReceiver, startSmtpReceiver } from '../testing/receivers.js';

const MINUTE = 60_000;
let clock = Math.ceil(Date.now() / 3_600_000) * 3_600_000 - 30 * MINUTE; // a known window boundary
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
let hooks: Awaited<ReturnType<typeof startHttpReceiver>>;
let pager: Awaited<ReturnType<typeof startHttpReceiver>>;

before(async () => {
  smtp = await startSmtpReceiver();
  hooks = await startHttpReceiver();
  pager = await startHttpReceiver();
  server = await startTestServer(
    {
      LOGSTEAD_SMTP_URL: smtp.url,
      LOGSTEAD_SMTP_FROM: 'Logstead <alerts@logstead.test>',
      LOGSTEAD_PAGING_URL: `${pager.url}/v2/enqueue`,
      LOGSTEAD_PUBLIC_URL: 'https://logs.example.com',
      LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS: 'true',
      LOGSTEAD_DELIVERY_RETRY_BASE_MS: '20',
    },
    { now: () => clock },
  );
});
after(async () => {
  await server.close();
  await Promise.all([smtp.close(), hooks.close(), pager.close()]);
});

async function config(method: string, path: string, body?: unknown) {
  const reply = await request(`${server.url}${path}`, {
    method,
    headers: { servicekey: server.org.serviceKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  assert.equal(reply.status, 200, reply.text);
  return reply.json;
}

async function ingest(lines: Array<Record<string, unknown>>, host = 'web-1') {
  const reply = await request(`${server.url}/logs/ingest?hostname=${host}&tags=prod`, {
    method: 'POST',
    headers: { apikey: server.org.ingestionKey, 'content-type': 'application/json' },
    body: JSON.stringify({ lines }),
  });
  assert.equal(reply.status, 200, reply.text);
}

const hooksFor = (path: string) => hooks.received.filter((hook) => hook.path === path);

describe('webhooks', () => {
  test('presence + immediate delivers as soon as the limit is reached, with every template token', async () => {
    const view = await config('POST', '/v1/config/view', {
      name: 'Payment failures',
      query: 'payment failed',
      channels: [
        {
          integration: 'webhook',
          url: `${hooks.url}/tokens`,
          method: 'post',
          headers: { 'x-team': 'payments' },
          triggerlimit: 2,
          triggerinterval: '5m',
          immediate: true,
          terminal: false,
          bodyTemplate: {
            name: '{{ name }}',
            matches: '{{matches}}',
            query: '{{ query }}',
            url: '{{ url }}',
            level: '{{ level }}',
            app: '{{ app }}',
            host: '{{ host }}',
            tag: '{{ tag }}',
            line: '{{ line }}',
            lines: '{{ lines }}',
            text: 'Alert {{ name }}: {{ matches }} lines',
            objects: '{{ line_objects }}',
            first: '{{ first_line_object }}',
            firstText: '{{ first_line_object._line }}',
            second: '{{ line_objects[1]._app }}',
            unknown: '{{ nonsense }}',
          },
        },
      ],
    });
    await ingest([{ line: 'payment failed for order 1', app: 'billing', level: 'error' }]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(hooksFor('/tokens').length, 0, 'one line is under the limit');
    await ingest([{ line: 'payment failed for order 2', app: 'checkout', level: 'warn' }, { line: 'unrelated' }]);
    const [hook] = await eventually(() => (hooksFor('/tokens').length ? hooksFor('/tokens') : undefined), 5000, 'the webhook');
    assert.equal(hook.method, 'POST');
    assert.equal(hook.headers['x-team'], 'payments');
    assert.equal(hook.headers['content-type'], 'application/json');
    const body = JSON.parse(hook.body);
    assert.equal(body.name, 'Payment failures');
    assert.equal(body.matches, '2');
    assert.equal(body.query, 'payment failed');
    const link = new URL(body.url);
    assert.equal(`${link.origin}${link.pathname}`, 'https://logs.example.com/');
    assert.equal(link.searchParams.get('view'), view.viewid);
    assert.equal(link.searchParams.get('line'), body.first._id);
    // The hour that ends with the line, so the viewer shows it even when the link is followed later.
    assert.equal(Number(link.searchParams.get('to')), body.first._ts + 1);
    assert.equal(Number(link.searchParams.get('from')), body.first._ts - 3_600_000);
    assert.equal(body.level, 'ERROR');
    assert.equal(body.app, 'billing');
    assert.equal(body.host, 'web-1');
    assert.equal(body.tag, 'prod');
    assert.equal(body.line, 'payment failed for order 1');
    assert.equal(body.lines, 'payment failed for order 1\npayment failed for order 2');
    assert.equal(body.text, 'Alert Payment failures: 2 lines');
    assert.equal(body.objects.length, 2, 'line_objects is a real array');
    assert.equal(body.objects[1]._line, 'payment failed for order 2');
    assert.equal(body.first._app, 'billing', 'first_line_object is a real object');
    assert.equal(body.firstText, 'payment failed for order 1');
    assert.equal(body.second, 'checkout');
    assert.equal(body.unknown, '{{ nonsense }}');
    await ingest([{ line: 'payment failed again' }]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(hooksFor('/tokens').length, 1, 'once per window');
  });

  test('without a template, the default body carries the same information', async () => {
    await config('POST', '/v1/config/view', {
      name: 'Default body',
      query: 'defaultbody',
      channels: [{ integration: 'webhook', url: `${hooks.url}/default`, triggerlimit: 1, immediate: true }],
    });
    await ingest([{ line: 'defaultbody here', app: 'svc', level: 'info' }]);
    const [hook] = await eventually(() => (hooksFor('/default').length ? hooksFor('/default') : undefined));
    const body = JSON.parse(hook.body);
    assert.equal(body.name, 'Default body');
    assert.equal(body.matches, 1);
    assert.equal(body.line, 'defaultbody here');
    assert.equal(body.app, 'svc');
    assert.equal(body.kind, 'immediate');
    assert.equal(body.line_objects[0]._line, 'defaultbody here');
    assert.ok(body.window.start && body.window.end);
  });

  test('presence + terminal delivers at the end of the window', async () => {
    await config('POST', '/v1/config/view', {
      name: 'Terminal',
      query: 'terminalword',
      channels: [{ integration: 'webhook', url: `${hooks.url}/terminal`, triggerlimit: 2, triggerinterval: '1m', immediate: false, terminal: true }],
    });
    await ingest([{ line: 'terminalword 1' }, { line: 'terminalword 2' }, { line: 'terminalword 3' }]);
    await server.running.alerts.tick();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(hooksFor('/terminal').length, 0, 'not before the window ends');
    clock += MINUTE;
    await server.running.alerts.tick();
    const [hook] = await eventually(() => (hooksFor('/terminal').length ? hooksFor('/terminal') : undefined));
    assert.equal(JSON.parse(hook.body).matches, 3);
    assert.equal(JSON.parse(hook.body).kind, 'terminal');
  });

  test('absence fires for an active view with too few lines, and not for an idle one', async () => {
    await config('POST', '/v1/config/view', {
      name: 'Heartbeat',
      query: 'heartbeat',
      channels: [{ integration: 'webhook', url: `${hooks.url}/absence`, operator: 'absence', triggerlimit: 5, triggerinterval: '1m', immediate: false, terminal: true }],
    });
    await config('POST', '/v1/config/view', {
      name: 'Idle',
      query: 'neverseenword',
      channels: [{ integration: 'webhook', url: `${hooks.url}/idle`, operator: 'absence', triggerlimit: 5, triggerinterval: '1m', immediate: false, terminal: true }],
    });
    await ingest([{ line: 'heartbeat ok' }]);
    clock += MINUTE;
    await server.running.alerts.tick();
    const [hook] = await eventually(() => (hooksFor('/absence').length ? hooksFor('/absence') : undefined));
    const body = JSON.parse(hook.body);
    assert.equal(body.kind, 'absence');
    assert.equal(body.matches, 1);
    assert.doesNotMatch(body.url, /line=/, 'absence alerts link the view, not a line');
    clock += MINUTE;
    await server.running.alerts.tick();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(hooksFor('/idle').length, 0);
  });

  test('a receiver answering 500 gets the alert again until it answers 200, and the log shows each attempt', async () => {
    hooks.answer(500, 503);
    const view = await config('POST', '/v1/config/view', {
      name: 'Retried',
      query: 'retryword',
      channels: [{ integration: 'webhook', url: `${hooks.url}/retry`, triggerlimit: 1, immediate: true }],
    });
    await ingest([{ line: 'retryword' }]);
    await eventually(() => (hooksFor('/retry').length >= 3 ? true : undefined), 5000, 'three attempts');
    const log = await config('GET', '/v1/alerts/deliveries');
    const entry = await eventually(async () => {
      const found = (await config('GET', '/v1/alerts/deliveries')).find((d: { viewid: string; status: string }) => d.viewid === view.viewid && d.status === 'delivered');
      return found;
    });
    assert.ok(Array.isArray(log));
    assert.deepEqual(entry.attempts.map((a: { outcome: string; detail: string }) => [a.outcome, a.detail]), [['will retry', 'HTTP 500'], ['will retry', 'HTTP 503'], ['delivered', 'HTTP 200']]);
    assert.equal(entry.integration, 'webhook');
    assert.equal(entry.kind, 'immediate');
    assert.equal(hooksFor('/retry').length, 3, 'delivered once it succeeded, no more');
  });

  test("an organisation's delivery log never shows another's", async () => {
    const other = await server.createOrg('quiet');
    const reply = await request(`${server.url}/v1/alerts/deliveries`, { headers: { servicekey: other.serviceKey } });
    assert.deepEqual(reply.json, []);
  });
});

describe('e-mail', () => {
  test('a readable message with view, count, window, link and lines, times in the channel time zone', async () => {
    await config('POST', '/v1/config/view', {
      name: 'Disk <full>',
      query: 'disk full',
      channels: [{ integration: 'email', emails: ['ops@example.com', 'dev@example.com'], timezone: 'Pacific/Auckland', triggerlimit: 2, triggerinterval: '15m', immediate: 'true', terminal: 'false' }],
    });
    await ingest([{ line: 'disk full on /var', timestamp: Date.now() }, { line: 'disk full on /home', timestamp: Date.now() }]);
    const mail = await eventually(() => smtp.messages.find((m) => m.subject?.includes('Disk <full>')), 5000, 'the e-mail');
    assert.equal(mail.subject, 'Logstead alert: 2 lines matched view "Disk <full>"');
    assert.deepEqual(mail.from?.value.map((sender) => [sender.name, sender.address]), [['Logstead', 'alerts@logstead.test']]);
    assert.deepEqual((Array.isArray(mail.to) ? mail.to : [mail.to]).flatMap((to) => to!.value.map((v) => v.address)), ['ops@example.com', 'dev@example.com']);
    assert.match(mail.text ?? '', /View: +Disk <full>/);
    assert.match(mail.text ?? '', /Matches: 2/);
    assert.match(mail.text ?? '', /Alert: +2 or more lines in 15 minutes/);
    assert.match(mail.text ?? '', /disk full on \/var/);
    assert.match(mail.text ?? '', /https:\/\/logs\.example\.com\/\?view=/);
    const zone = new Intl.DateTimeFormat('en-GB', { timeZone: 'Pacific/Auckland', timeZoneName: 'short' }).formatToParts(new Date()).find((part) => part.type === 'timeZoneName')!.value;
    assert.ok((mail.text ?? '').includes(zone), `times are in the Auckland zone (${zone})`);
    const html = String(mail.html);
    assert.match(html, /Disk &lt;full&gt;/, 'escaped in HTML');
    assert.match(html, /disk full on \/home/);
  });

  test('lines beyond the cap are counted, not listed', async () => {
    await config('POST', '/v1/config/view', {
      name: 'Flood',
      query: 'floodword',
      channels: [{ integration: 'email', emails: ['ops@example.com'], triggerlimit: 30, triggerinterval: '1m', immediate: true }],
    });
    await ingest(Array.from({ length: 30 }, (_, i) => ({ line: `floodword ${i}` })));
    const mail = await eventually(() => smtp.messages.find((m) => m.subject?.includes('Flood')));
    assert.match(mail.text ?? '', /10 more matched lines are not shown/);
    assert.equal((mail.text ?? '').split('\n').filter((line) => /floodword \d+$/.test(line)).length, 20);
  });
});

describe('incident paging', () => {
  test('a PagerDuty Events v2 trigger with a stable dedup key per channel', async () => {
    const view = await config('POST', '/v1/config/view', {
      name: 'Database down',
      query: 'connection refused',
      channels: [{ integration: 'incidentpaging', key: 'routing-key-123', triggerlimit: 1, triggerinterval: '1m', immediate: true }],
    });
    await ingest([{ line: 'db: connection refused', level: 'fatal', app: 'api' }], 'db-client-7');
    const [page] = await eventually(() => (pager.received.length ? pager.received : undefined), 5000, 'the page');
    assert.equal(page.path, '/v2/enqueue');
    const event = JSON.parse(page.body);
    assert.equal(event.routing_key, 'routing-key-123');
    assert.equal(event.event_action, 'trigger');
    assert.equal(event.dedup_key, `logstead-${view.viewid}-${view.channels[0].alertid}`);
    assert.equal(event.payload.summary, '1 line matched view "Database down"');
    assert.equal(event.payload.severity, 'critical');
    assert.equal(event.payload.source, 'db-client-7');
    assert.equal(event.payload.custom_details.lines[0]._line, 'db: connection refused');
    assert.equal(event.payload.custom_details.query, 'connection refused');
    clock += MINUTE;
    await ingest([{ line: 'db: connection refused', level: 'fatal' }]);
    const second = await eventually(() => (pager.received.length >= 2 ? pager.received[1] : undefined));
    assert.equal(JSON.parse(second.body).dedup_key, event.dedup_key, 'the same incident is updated');
  });

  test('a preset attached to a view fires with that view\'s matches', async () => {
    const preset = await config('POST', '/v1/config/presetalert', {
      name: 'Page the on-call',
      channels: [{ integration: 'pagerduty', key: 'preset-key', triggerlimit: 2, triggerinterval: '1m', immediate: true }],
    });
    await config('POST', '/v1/config/view', { name: 'Preset user', query: 'presetword', presetid: preset.presetid });
    const before = pager.received.length;
    await ingest([{ line: 'presetword one' }, { line: 'presetword two' }]);
    const page = await eventually(() => pager.received.slice(before).find((p) => JSON.parse(p.body).routing_key === 'preset-key'));
    const event = JSON.parse(page.body);
    assert.equal(event.payload.custom_details.view, 'Preset user');
    assert.equal(event.payload.custom_details.matches, 2);
  });
});
