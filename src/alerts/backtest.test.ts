/**
 * The backtest against the live evaluator: the same lines, sent one by one in time order while the
 * evaluator's clock follows them, must give the same firings as the backtest computes afterwards
 * from the stored lines, for every kind of rule.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestServer, request, startTestServer } from '../testing/harness.js';
import { startHttpReceiver } from '../testing/receivers.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const T = Math.floor((Date.now() - 3 * 3_600_000) / 3_600_000) * 3_600_000; // on every window boundary
let clock = T;
let server: TestServer;
let hooks: Awaited<ReturnType<typeof startHttpReceiver>>;

before(async () => {
  hooks = await startHttpReceiver();
  server = await startTestServer({ LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS: 'true' }, { now: () => clock });
});
after(async () => {
  await server.close();
  await hooks.close();
});

function call(method: string, path: string, body?: unknown) {
  return request(`${server.url}${path}`, {
    method,
    headers: { servicekey: server.org.serviceKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

const RULES = [
  { operator: 'presence', triggerlimit: 3, triggerinterval: '1m', immediate: true, terminal: false },
  { operator: 'presence', triggerlimit: 2, triggerinterval: '1m', immediate: false, terminal: true },
  { operator: 'absence', triggerlimit: 2, triggerinterval: '1m', immediate: false, terminal: true },
  { operator: 'presence', triggerlimit: 4, triggerinterval: '5m', immediate: true, terminal: true },
  { operator: 'presence', triggerlimit: 2, triggerinterval: '5m', immediate: false, terminal: true },
];
/** Matching lines in each minute from T; the minutes before the first line are before the view is active. */
const PER_MINUTE = [0, 1, 3, 0, 2, 5, 0, 0, 1, 4, 0, 0];

test('same lines, same firings: the backtest agrees with the live evaluator for every rule', async () => {
  const channels = RULES.map((rule) => ({ ...rule, integration: 'webhook', url: `${hooks.url}/bt` }));
  const view = (await call('POST', '/v1/config/view', { name: 'Backtested', query: 'btword', hosts: ['bt-host'], channels })).json;
  for (const [minute, lines] of PER_MINUTE.entries()) {
    clock = T + minute * MINUTE;
    await server.running.alerts.tick();
    for (let i = 0; i < lines; i++) {
      clock = T + minute * MINUTE + (i + 1) * SECOND;
      // A line that does not match beside each one that does: the rule's filters apply.
      const body = { lines: [{ line: `btword ${minute}.${i}`, timestamp: clock }, { line: `other ${minute}.${i}`, timestamp: clock }] };
      const reply = await request(`${server.url}/logs/ingest?hostname=bt-host`, { method: 'POST', headers: { apikey: server.org.ingestionKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      assert.equal(reply.status, 200, reply.text);
    }
  }
  clock = T + PER_MINUTE.length * MINUTE;
  await server.running.alerts.tick();

  const deliveries = (await call('GET', `/v1/alerts/deliveries?viewid=${view.viewid}&limit=1000`)).json as Array<{ alertid: string; kind: string; windowStart: number; matches: number }>;
  assert.ok(deliveries.length > 10, 'the live evaluator fired');
  for (const [index, rule] of RULES.entries()) {
    const alertid = view.channels[index].alertid;
    const live = deliveries
      .filter((delivery) => delivery.alertid === alertid)
      .map((delivery) => `${delivery.windowStart - T} ${delivery.kind} ${delivery.matches}`)
      .sort();
    const reply = await call('POST', '/v1/alerts/backtest', { query: 'btword', hosts: ['bt-host'], channel: rule, days: 1 });
    assert.equal(reply.status, 200, reply.text);
    const backtested = reply.json.firings.map((firing: { windowStart: number; kind: string; lines: number }) => `${firing.windowStart - T} ${firing.kind} ${firing.lines}`).sort();
    assert.ok(live.length > 0, `rule ${index} fired live`);
    assert.deepEqual(backtested, live, `rule ${index}: ${JSON.stringify(rule)}`);
  }
});

test('immediate firings say when the limit was reached; the answer says what was evaluated', async () => {
  const reply = await call('POST', '/v1/alerts/backtest', { query: 'btword', hosts: ['bt-host'], channel: RULES[0], days: 2 });
  const first = reply.json.firings[0];
  assert.deepEqual(first, { at: T + 2 * MINUTE + 3 * SECOND, windowStart: T + 2 * MINUTE, windowEnd: T + 3 * MINUTE, kind: 'immediate', lines: 3, windowLines: 3 });
  assert.equal(reply.json.evaluatedTo, clock);
  assert.equal(reply.json.evaluatedFrom, clock - 2 * 24 * 60 * MINUTE);
  assert.equal(reply.json.windows, 2 * 24 * 60);
  assert.equal(reply.json.intervalMs, MINUTE);
});

test('bad rules and ranges are refused with the validation envelope', async () => {
  const refused = [
    { channel: RULES[0], days: 8 },
    { channel: RULES[0], days: 0 },
    { channel: { ...RULES[2], immediate: true } },
    { channel: { ...RULES[0], triggerinterval: '2m' } },
    { query: 'btword' },
  ];
  for (const body of refused) {
    const reply = await call('POST', '/v1/alerts/backtest', body);
    assert.equal(reply.status, 400, JSON.stringify(body));
    assert.ok(reply.json.details[0].field, 'names the field');
  }
  const badQuery = await call('POST', '/v1/alerts/backtest', { query: 'level:', channel: RULES[0] });
  assert.equal(badQuery.status, 400);
});
