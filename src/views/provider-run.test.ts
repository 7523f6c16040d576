/**
 * Replays what the LogDNA Terraform provider does on `terraform apply`, refresh, update and
 * destroy (logdna/terraform-provider-logdna: request.go, resource_view.go, resource_alert.go):
 * the headers and body shapes it sends, and the fields it reads back. A read that does not
 * reproduce what was sent is drift: Terraform would plan a change on every run.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Reply, type TestServer, request, startTestServer } from '../testing/harness.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

/** The provider: a servicekey header, JSON content type only with a body, and 200 or an error. */
async function provider(method: string, path: string, body?: unknown): Promise<Reply> {
  const reply = await request(`${server.url}${path}`, {
    method,
    headers: { servicekey: server.org.serviceKey, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  assert.equal(reply.status, 200, `${method} ${path}, status ${reply.status} NOT OK! ${reply.text}`);
  return reply;
}

/** Go's encoding/json matches keys case-insensitively: the provider's `viewID` reads `viewid`. */
const field = (object: Record<string, unknown>, name: string) =>
  Object.entries(object).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];

/** What resource_view.go's read maps each channel to (booleans via strconv.FormatBool). */
function providerState(channel: Record<string, any>): Record<string, unknown> {
  const common = {
    immediate: String(channel.immediate),
    operator: channel.operator,
    terminal: String(channel.terminal),
    triggerlimit: channel.triggerlimit,
    triggerinterval: channel.triggerinterval,
  };
  if (channel.integration === 'email') return { integration: 'email', emails: channel.emails, timezone: channel.timezone, ...common };
  if (channel.integration === 'pagerduty') return { integration: 'pagerduty', key: channel.key, ...common };
  return { integration: 'webhook', bodytemplate: channel.bodyTemplate, headers: channel.headers, method: channel.method, url: channel.url, ...common };
}

const emailPlan = { integration: 'email', emails: ['oncall@example.com'], immediate: 'false', operator: 'absence', terminal: 'true', triggerinterval: '15m', triggerlimit: 15, timezone: 'Pacific/Samoa' };
const webhookPlan = {
  integration: 'webhook',
  url: 'https://hooks.example.com/1',
  method: 'post',
  headers: { 'x-team': 'payments' },
  bodyTemplate: { fields: { description: '{{ name }}', count: '{{ matches }}' } },
  immediate: 'true',
  operator: 'presence',
  terminal: 'false',
  triggerinterval: '30',
  triggerlimit: 1,
};
const pagerdutyPlan = { integration: 'pagerduty', key: 'Your PagerDuty API key goes here', immediate: 'false', operator: 'presence', terminal: 'true', triggerinterval: '1m', triggerlimit: 20 };

/** The plan as the provider keeps it in state, to compare with what a read maps to. */
function planned(channel: Record<string, any>) {
  const state = providerState({ ...channel, immediate: channel.immediate === 'true', terminal: channel.terminal === 'true' });
  if (channel.integration === 'webhook') state.bodytemplate = JSON.stringify(channel.bodyTemplate);
  return state;
}

test('create, read, update, attach a preset, and destroy a view as the Terraform provider does', async () => {
  await provider('POST', '/v1/config/categories/views', { name: 'DemoCategory1' });

  // terraform apply: create
  const plan = {
    name: 'Email PagerDuty and Webhook View',
    query: 'level:debug my query',
    apps: ['app1', 'app2'],
    hosts: ['host1', 'host2'],
    levels: ['fatal', 'critical'],
    tags: ['tags1', 'tags2'],
    category: ['DemoCategory1'],
    channels: [emailPlan, pagerdutyPlan, webhookPlan],
  };
  const created = await provider('POST', '/v1/config/view', plan);
  const viewId = field(created.json, 'viewID') as string;
  assert.match(viewId, /^[0-9a-f]{10}$/);

  // refresh: read, and nothing may differ from the plan
  const read = (await provider('GET', `/v1/config/view/${viewId}`)).json;
  for (const key of ['name', 'query', 'apps', 'hosts', 'levels', 'tags']) assert.deepEqual(read[key], plan[key as keyof typeof plan], key);
  assert.deepEqual(read.category, plan.category);
  assert.deepEqual(read.channels.map(providerState), plan.channels.map(planned));
  for (const channel of read.channels) assert.match(channel.alertid, /^[0-9a-f]{10}$/);

  // terraform apply after an edit: full replace
  const update = { ...plan, name: 'Renamed view', query: 'level:error', channels: [webhookPlan] };
  await provider('PUT', `/v1/config/view/${viewId}`, update);
  const reread = (await provider('GET', `/v1/config/view/${viewId}`)).json;
  assert.equal(reread.name, 'Renamed view');
  assert.equal(reread.query, 'level:error');
  assert.deepEqual(reread.channels.map(providerState), [planned(webhookPlan)]);

  // logdna_alert (a preset) and a view that uses it
  const alert = await provider('POST', '/v1/config/presetalert', { name: 'Preset alert', channels: [pagerdutyPlan] });
  const presetId = field(alert.json, 'presetid') as string;
  const alertRead = (await provider('GET', `/v1/config/presetalert/${presetId}`)).json;
  assert.equal(alertRead.name, 'Preset alert');
  assert.deepEqual(alertRead.channels.map(providerState), [planned(pagerdutyPlan)]);
  await provider('PUT', `/v1/config/view/${viewId}`, { name: 'Renamed view', query: 'level:error', presetid: presetId });
  const withPreset = (await provider('GET', `/v1/config/view/${viewId}`)).json;
  assert.deepEqual(withPreset.presetids, [presetId]);
  assert.equal(withPreset.presetids.join(''), presetId, 'the provider joins presetids into one id');

  // terraform destroy
  assert.deepEqual((await provider('DELETE', `/v1/config/view/${viewId}`)).json, { deleted: true });
  assert.deepEqual((await provider('DELETE', `/v1/config/presetalert/${presetId}`)).json, { deleted: true });
  const gone = await request(`${server.url}/v1/config/view/${viewId}`, { headers: { servicekey: server.org.serviceKey } });
  assert.equal(gone.status, 404, 'the provider and the CLI take 404 as already gone');
});

test('configuration survives a restart', async () => {
  const preset = await provider('POST', '/v1/config/presetalert', { name: 'durable', channels: [emailPlan] });
  const category = await provider('POST', '/v1/config/categories/views', { name: 'Durable' });
  const view = await provider('POST', '/v1/config/view', { name: 'durable view', query: 'x', category: ['Durable'], presetid: preset.json.presetid, channels: [webhookPlan] });
  const before = (await provider('GET', `/v1/config/view/${view.json.viewid}`)).json;
  await server.restart();
  assert.deepEqual((await provider('GET', `/v1/config/view/${view.json.viewid}`)).json, before);
  assert.equal((await provider('GET', `/v1/config/categories/views/${category.json.id}`)).json.name, 'Durable');
  assert.equal((await provider('GET', `/v1/config/presetalert/${preset.json.presetid}`)).json.name, 'durable');
});
