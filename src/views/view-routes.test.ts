import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { NewAccount } from '../accounts/accounts.js';
import { type TestServer, basic, request, startTestServer } from '../testing/harness.js';

let server: TestServer;
let org: NewAccount;

before(async () => {
  server = await startTestServer();
  org = server.org;
});
after(() => server.close());

function call(method: string, path: string, body?: unknown, key = org.serviceKey) {
  return request(`${server.url}${path}`, {
    method,
    headers: { servicekey: key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

const emailChannel = {
  integration: 'email',
  emails: ['ops@example.com', 'dev@example.com'],
  triggerlimit: 5,
  triggerinterval: '30',
  operator: 'presence',
  immediate: 'true',
  terminal: 'false',
  timezone: 'Europe/Berlin',
};
const webhookChannel = {
  integration: 'webhook',
  url: 'https://hooks.example.com/logstead',
  method: 'put',
  headers: { 'x-token': 'secret' },
  bodyTemplate: { text: 'Matches: {{ matches }}', lines: '{{ lines }}' },
  triggerlimit: 1,
  triggerinterval: '5m',
  immediate: true,
  terminal: true,
};
const pagingChannel = { integration: 'pagerduty', key: 'routing-key-1', triggerlimit: 10, triggerinterval: '15m', operator: 'absence', immediate: false, terminal: true };

describe('views', () => {
  test('POST creates a view and echoes it in the write dialect', async () => {
    const reply = await call('POST', '/v1/config/view', {
      name: 'Checkout errors',
      query: 'app:checkout level:error',
      hosts: ['web-1'],
      levels: ['ERROR'],
      channels: [emailChannel, webhookChannel, pagingChannel],
    });
    assert.equal(reply.status, 200, reply.text);
    assert.match(reply.json.viewid, /^[0-9a-f]{10}$/);
    assert.equal(reply.json.name, 'Checkout errors');
    const [email, webhook, paging] = reply.json.channels;
    for (const channel of reply.json.channels) assert.match(channel.alertid, /^[0-9a-f]{10}$/);
    assert.equal(email.triggerinterval, 30, 'a number on writes');
    assert.equal(email.emails, 'ops@example.com,dev@example.com', 'a string on writes');
    assert.equal(email.immediate, true, '"true" becomes a boolean');
    assert.equal(email.terminal, false);
    assert.equal(webhook.triggerinterval, '5m');
    assert.equal(webhook.bodyTemplate, JSON.stringify(webhookChannel.bodyTemplate));
    assert.equal(webhook.method, 'put');
    assert.deepEqual(webhook.headers, { 'x-token': 'secret' });
    assert.equal(paging.integration, 'pagerduty', 'the alias is kept as sent');
    assert.equal(paging.key, 'routing-key-1');
  });

  test('GET returns the read dialect, alone and in the list', async () => {
    const created = await call('POST', '/v1/config/view', { name: 'read me', apps: ['api'], channels: [emailChannel, webhookChannel] });
    const one = await call('GET', `/v1/config/view/${created.json.viewid}`);
    assert.equal(one.status, 200);
    const [email, webhook] = one.json.channels;
    assert.equal(email.triggerinterval, '30', 'a string on reads');
    assert.deepEqual(email.emails, ['ops@example.com', 'dev@example.com'], 'an array on reads');
    assert.equal(webhook.bodyTemplate, JSON.stringify(webhookChannel.bodyTemplate), 'a JSON string');
    assert.deepEqual(one.json.channels.map((c: { alertid: string }) => c.alertid), created.json.channels.map((c: { alertid: string }) => c.alertid));
    assert.deepEqual(one.json.presetids, []);
    assert.equal(one.json.account, org.account);
    assert.deepEqual(one.json.apps, ['api']);
    const list = await call('GET', '/v1/config/view');
    assert.ok(Array.isArray(list.json));
    assert.deepEqual(list.json.find((view: { viewid: string }) => view.viewid === created.json.viewid), one.json);
  });

  test('PUT replaces the whole configuration: what is not given is removed, channels included', async () => {
    const created = await call('POST', '/v1/config/view', { name: 'before', query: 'a', hosts: ['h'], channels: [emailChannel] });
    const put = await call('PUT', `/v1/config/view/${created.json.viewid}`, { name: 'after', apps: ['x'] });
    assert.equal(put.status, 200, put.text);
    const read = await call('GET', `/v1/config/view/${created.json.viewid}`);
    assert.equal(read.json.name, 'after');
    assert.equal(read.json.query, '');
    assert.deepEqual(read.json.hosts, []);
    assert.deepEqual(read.json.apps, ['x']);
    assert.deepEqual(read.json.channels, []);
  });

  test('PUT keeps the alertid of a channel it leaves unchanged, so its alert window carries on', async () => {
    const created = await call('POST', '/v1/config/view', { name: 'keep ids', query: 'x', channels: [emailChannel, webhookChannel] });
    const [emailId, webhookId] = created.json.channels.map((c: { alertid: string }) => c.alertid);
    // Terraform sends no alertid: an identical channel keeps its id, a changed one gets a new one.
    const renamed = await call('PUT', `/v1/config/view/${created.json.viewid}`, { name: 'renamed', query: 'x', channels: [emailChannel, { ...webhookChannel, triggerlimit: 9 }] });
    assert.equal(renamed.json.channels[0].alertid, emailId);
    assert.notEqual(renamed.json.channels[1].alertid, webhookId);
    // A client that sends the alertid back keeps it even when it changes settings.
    const edited = await call('PUT', `/v1/config/view/${created.json.viewid}`, { name: 'renamed', query: 'x', channels: [{ ...emailChannel, alertid: emailId, triggerlimit: 7 }] });
    assert.equal(edited.json.channels[0].alertid, emailId);
    assert.equal(edited.json.channels[0].triggerlimit, 7);
  });

  test('PUT on an unknown view says Nothing to configure; GET and DELETE say NotFound', async () => {
    const put = await call('PUT', '/v1/config/view/0000000000', { name: 'x', query: 'a' });
    assert.equal(put.status, 400);
    assert.deepEqual(put.json, { error: 'Nothing to configure', code: 'BadRequest', status: 'error' });
    for (const method of ['GET', 'DELETE']) {
      const reply = await call(method, '/v1/config/view/0000000000');
      assert.equal(reply.status, 404);
      assert.deepEqual(reply.json, { error: 'Resource Not Found', code: 'NotFound', status: 'error' });
    }
  });

  test('DELETE removes the view and its view-specific alerts', async () => {
    const created = await call('POST', '/v1/config/view', { name: 'doomed', query: 'x', channels: [emailChannel] });
    const deleted = await call('DELETE', `/v1/config/view/${created.json.viewid}`);
    assert.equal(deleted.status, 200);
    assert.deepEqual(deleted.json, { deleted: true });
    assert.equal((await call('GET', `/v1/config/view/${created.json.viewid}`)).status, 404);
    const alertIds = JSON.stringify((await call('GET', '/v1/config/view')).json);
    assert.ok(!alertIds.includes(created.json.channels[0].alertid));
  });

  test('category takes category names, in any case, and unknown names are refused', async () => {
    await call('POST', '/v1/config/categories/views', { name: 'Payments' });
    const created = await call('POST', '/v1/config/view', { name: 'categorised', query: 'x', category: ['payments'] });
    assert.equal(created.status, 200, created.text);
    assert.deepEqual(created.json.category, ['Payments']);
    const unknown = await call('POST', '/v1/config/view', { name: 'lost', query: 'x', category: ['Nope', 'Payments'] });
    assert.equal(unknown.status, 400);
    assert.deepEqual(unknown.json, { error: 'Invalid category name(s): Nope', code: 'BadRequest', status: 'error' });
    const empty = await call('POST', '/v1/config/view', { name: 'empty', query: 'x', category: [''] });
    assert.equal(empty.json.details[0].message, '"category[0]" is not allowed to be empty');
  });

  test("a view's query must parse, and the error says why", async () => {
    const reply = await call('POST', '/v1/config/view', { name: 'broken', query: 'level:(error' });
    assert.equal(reply.status, 400);
    assert.equal(reply.json.details[0].key, 'query');
    assert.match(reply.json.error, /position 12: expected "\)" to close the group/);
  });
});

describe('validation (compat reference §5.5)', () => {
  const cases: Array<[string, Record<string, unknown>, Array<[string, string]>]> = [
    ['no filter', { name: 'x' }, [['value', '"value" must contain at least one of [query, hosts, apps, levels, tags]']]],
    ['no name', { query: 'x' }, [['name', '"name" is required']]],
    ['wrong types', { name: 5, query: 'x', hosts: 'web-1' }, [['name', '"name" must be a string'], ['hosts', '"hosts" must be an array']]],
    [
      'an unknown integration',
      { name: 'x', query: 'x', channels: [{ integration: 'slackish', triggerlimit: 1 }] },
      [['channels[0].integration', '"channels[0].integration" must be one of [email, webhook, incidentpaging, pagerduty, slack, opsgenie, victorops, teams]']],
    ],
    [
      'an absence interval of 30',
      { name: 'x', query: 'x', channels: [{ ...pagingChannel, triggerinterval: '30' }] },
      [['channels[0].triggerinterval', '"channels[0].triggerinterval" must be one of [1m, 5m, 15m, 30m, 1h, 6h, 12h, 24h, 25h]']],
    ],
    [
      'a presence interval not in the list',
      { name: 'x', query: 'x', channels: [{ ...emailChannel, triggerinterval: '2m' }] },
      [['channels[0].triggerinterval', '"channels[0].triggerinterval" must be one of [30, 1m, 5m, 15m, 30m, 1h, 6h, 12h, 24h, 25h]']],
    ],
    ['an unknown operator', { name: 'x', query: 'x', channels: [{ ...emailChannel, operator: 'sometimes' }] }, [['channels[0].operator', '"channels[0].operator" must be one of [presence, absence]']]],
    ['a non-boolean immediate', { name: 'x', query: 'x', channels: [{ ...emailChannel, immediate: 'not a bool' }] }, [['channels[0].immediate', '"channels[0].immediate" must be a boolean']]],
    ['absence with immediate', { name: 'x', query: 'x', channels: [{ ...pagingChannel, immediate: true }] }, [['channels[0].immediate', '"channels[0].immediate" must be [false]']]],
    ['absence without terminal', { name: 'x', query: 'x', channels: [{ ...pagingChannel, terminal: 'false' }] }, [['channels[0].terminal', '"channels[0].terminal" must be [true]']]],
    [
      'presence with neither immediate nor terminal',
      { name: 'x', query: 'x', channels: [{ ...emailChannel, immediate: false, terminal: false }] },
      [['channels[0]', '"channels[0]" is a presence alert, so immediate or terminal must be true']],
    ],
    ['a triggerlimit of 0', { name: 'x', query: 'x', channels: [{ ...emailChannel, triggerlimit: 0 }] }, [['channels[0].triggerlimit', '"channels[0].triggerlimit" must be greater than or equal to 1']]],
    ['a triggerlimit over 100000', { name: 'x', query: 'x', channels: [{ ...emailChannel, triggerlimit: 100_001 }] }, [['channels[0].triggerlimit', '"channels[0].triggerlimit" must be less than or equal to 100000']]],
    ['a url that is not a URI', { name: 'x', query: 'x', channels: [{ ...webhookChannel, url: 'not a url' }] }, [['channels[0].url', '"channels[0].url" must be a valid uri']]],
    ['a url with another scheme', { name: 'x', query: 'x', channels: [{ ...webhookChannel, url: 'ftp://x.example/' }] }, [['channels[0].url', '"channels[0].url" must be a valid uri']]],
    ['an unknown method', { name: 'x', query: 'x', channels: [{ ...webhookChannel, method: 'trace' }] }, [['channels[0].method', '"channels[0].method" must be one of [post, put, patch, get, delete]']]],
    ['a bad e-mail address', { name: 'x', query: 'x', channels: [{ ...emailChannel, emails: ['ops@example.com', 'nope'] }] }, [['channels[0].emails[1]', '"channels[0].emails[1]" must be a valid email']]],
    ['an unknown time zone', { name: 'x', query: 'x', channels: [{ ...emailChannel, timezone: 'Mars/Olympus' }] }, [['channels[0].timezone', '"channels[0].timezone" must be a valid IANA time zone name, such as Europe/Berlin']]],
    ['a paging channel without a key', { name: 'x', query: 'x', channels: [{ ...pagingChannel, key: undefined }] }, [['channels[0].key', '"channels[0].key" is required']]],
    ['a webhook without a url', { name: 'x', query: 'x', channels: [{ ...webhookChannel, url: undefined }] }, [['channels[0].url', '"channels[0].url" is required']]],
    ['a bodyTemplate that is not an object', { name: 'x', query: 'x', channels: [{ ...webhookChannel, bodyTemplate: '[1' }] }, [['channels[0].bodyTemplate', '"channels[0].bodyTemplate" must be of type object']]],
    ['only empty filters', { name: 'x', query: '', hosts: [] }, [['value', '"value" must contain at least one of [query, hosts, apps, levels, tags]']]],
    ['a channel with nothing in it', { name: 'x', query: 'x', channels: [{}] }, [['channels[0].integration', '"channels[0].integration" is required'], ['channels[0].triggerlimit', '"channels[0].triggerlimit" is required']]],
    ['a header name that is not a token', { name: 'x', query: 'x', channels: [{ ...webhookChannel, headers: { 'bad header': 'x' } }] }, [['channels[0].headers', '"channels[0].headers" has "bad header", which is not a valid HTTP header name']]],
    ['a header value with a line break', { name: 'x', query: 'x', channels: [{ ...webhookChannel, headers: { 'x-a': 'a\r\nInjected: yes' } }] }, [['channels[0].headers.x-a', '"channels[0].headers.x-a" must not contain line breaks']]],
    ['a header the client must set itself', { name: 'x', query: 'x', channels: [{ ...webhookChannel, headers: { 'Content-Length': '1' } }] }, [['channels[0].headers', '"channels[0].headers" has "Content-Length", which Logstead sets itself']]],
    ['huge arrays', { name: 'x', hosts: Array.from({ length: 1001 }, (_, i) => `h${i}`) }, [['hosts', '"hosts" must contain less than or equal to 1000 items']]],
    ['an unknown preset', { name: 'x', query: 'x', presetid: 'ffffffffff' }, [['presetid', '"presetid" must be the id of an existing preset alert']]],
  ];
  for (const [name, body, expected] of cases) {
    test(`${name} is refused with Joi's message and changes nothing`, async () => {
      const before = (await call('GET', '/v1/config/view')).json.length;
      const reply = await call('POST', '/v1/config/view', body);
      assert.equal(reply.status, 400, reply.text);
      assert.equal(reply.json.code, 'BadRequest');
      assert.equal(reply.json.status, 'error');
      assert.deepEqual(reply.json.details.map((d: { key: string; message: string }) => [d.key, d.message]), expected);
      assert.equal(reply.json.error, expected.map(([, message]) => message).join('. '));
      assert.equal((await call('GET', '/v1/config/view')).json.length, before);
    });
  }

  test('bodies the API cannot take get the envelope: too large, not JSON, malformed URLs', async () => {
    const big = await call('POST', '/v1/config/view', { name: 'x', query: 'x', description: 'x'.repeat(1_100_000) });
    assert.equal(big.status, 413);
    assert.match(big.json.error, /1 MB limit/);
    const form = await request(`${server.url}/v1/config/view`, { method: 'POST', headers: { servicekey: org.serviceKey, 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=b' });
    assert.equal(form.status, 415);
    assert.equal(form.json.code, 'UnsupportedMediaType');
    const badUrl = await request(`${server.url}/v1/config/view/%00%ff`, { headers: { servicekey: org.serviceKey } });
    assert.equal(badUrl.status, 400);
    assert.equal(badUrl.json.code, 'BadRequest');
    const created = await call('POST', '/v1/config/view', { name: 'constructor', query: 'x', constructor: 1 });
    assert.equal(created.status, 200, 'a "constructor" key is plain data');
    const emptyJson = await request(`${server.url}/v1/config/view/${created.json.viewid}`, { method: 'DELETE', headers: { servicekey: org.serviceKey, 'content-type': 'application/json' } });
    assert.equal(emptyJson.status, 200, 'a JSON content type with no body is no body');
  });

  test('deeply nested and malformed bodies get 400, never 500', async () => {
    const nested = `${'{"a":'.repeat(5000)}"x"${'}'.repeat(5000)}`;
    const channel = JSON.stringify({ ...webhookChannel, bodyTemplate: '@' }).replace('"@"', nested);
    const deep = await request(`${server.url}/v1/config/view`, {
      method: 'POST',
      headers: { servicekey: org.serviceKey, 'content-type': 'application/json' },
      body: `{"name":"x","query":"x","channels":[${channel}]}`,
    });
    assert.equal(deep.status, 400, deep.text);
    assert.match(deep.json.error, /bodyTemplate/);
    const broken = await request(`${server.url}/v1/config/view`, {
      method: 'POST',
      headers: { servicekey: org.serviceKey, 'content-type': 'application/json' },
      body: '{"name":',
    });
    assert.equal(broken.status, 400);
    const array = await call('POST', '/v1/config/view', [1, 2]);
    assert.equal(array.status, 400);
  });
});

describe('validation errors name the field in words', () => {
  test('each detail carries a human field label beside Joi\'s key and message', async () => {
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ name: 'x' }, ['One of: Search query, Hosts, Apps, Levels, Tags']],
      [{ query: 'x' }, ['Name']],
      [{ name: 'x', query: 'x', channels: [emailChannel, { ...webhookChannel, url: 'not a url' }] }, ['Alert channel 2: Webhook URL']],
      [{ name: 'x', query: 'x', channels: [{ ...emailChannel, emails: ['ops@example.com', 'nope'] }] }, ['Alert channel 1: E-mail recipients, item 2']],
      [{ name: 'x', query: 'x', channels: [{ ...emailChannel, triggerinterval: '2m', triggerlimit: 0 }] }, ['Alert channel 1: Line count', 'Alert channel 1: Time window']],
      [{ name: 'x', query: 'x', channels: [{ ...webhookChannel, headers: { 'x-a': 'a\r\nb' } }] }, ['Alert channel 1: Webhook headers, x-a']],
      [{ name: 'x', query: 'x', channels: [{ ...emailChannel, immediate: false, terminal: false }] }, ['Alert channel 1']],
      [{ name: 'x', query: 'level:' }, ['Search query']],
      [{ name: 'x', query: 'x', presetid: 'ffffffffff' }, ['Preset alert']],
    ];
    for (const [body, fields] of cases) {
      const reply = await call('POST', '/v1/config/view', body);
      assert.equal(reply.status, 400, reply.text);
      assert.deepEqual(reply.json.details.map((d: { field: string }) => d.field).sort(), [...fields].sort(), JSON.stringify(body));
      for (const detail of reply.json.details) assert.ok(detail.key && detail.message, 'key and message stay for compatibility');
    }
  });
});

describe('preset alerts', () => {
  test('POST, GET, PUT and DELETE, with the dialects of each verb', async () => {
    const created = await call('POST', '/v1/config/presetalert', { name: 'On-call', channels: [emailChannel] });
    assert.equal(created.status, 200, created.text);
    assert.deepEqual(Object.keys(created.json), ['name', 'channels', 'presetid']);
    assert.equal(created.json.channels[0].triggerinterval, 30);
    assert.equal(created.json.channels[0].emails, 'ops@example.com,dev@example.com');

    const read = await call('GET', `/v1/config/presetalert/${created.json.presetid}`);
    assert.equal(read.json.channels[0].triggerinterval, '30');
    assert.deepEqual(read.json.channels[0].emails, ['ops@example.com', 'dev@example.com']);
    assert.equal(read.json.account, org.account);
    assert.ok(read.json._created && read.json._modified);
    const list = await call('GET', '/v1/config/presetalert');
    assert.ok(list.json.some((preset: { presetid: string }) => preset.presetid === created.json.presetid));

    const put = await call('PUT', `/v1/config/presetalert/${created.json.presetid}`, { name: 'On-call (nights)', channels: [webhookChannel] });
    assert.equal(put.status, 200);
    assert.equal(put.json.name, 'On-call (nights)');
    assert.equal(put.json.channels.length, 1);
    assert.equal(put.json.channels[0].integration, 'webhook');

    const deleted = await call('DELETE', `/v1/config/presetalert/${created.json.presetid}`);
    assert.deepEqual(deleted.json, { deleted: true });
  });

  test('unknown presets are NotFound for GET, PUT and DELETE', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const reply = await call(method, '/v1/config/presetalert/0000000000', method === 'PUT' ? { name: 'x' } : undefined);
      assert.equal(reply.status, 404, method);
      assert.deepEqual(reply.json, { error: 'Resource Not Found', code: 'NotFound', status: 'error' });
    }
  });

  test('views attach a preset by presetid, read it back as presetids, and show its channels', async () => {
    const preset = await call('POST', '/v1/config/presetalert', { name: 'shared', channels: [pagingChannel] });
    const view = await call('POST', '/v1/config/view', { name: 'with preset', query: 'x', presetid: preset.json.presetid });
    assert.equal(view.status, 200, view.text);
    const read = await call('GET', `/v1/config/view/${view.json.viewid}`);
    assert.deepEqual(read.json.presetids, [preset.json.presetid]);
    assert.deepEqual(read.json.channels.map((c: { alertid: string }) => c.alertid), [preset.json.channels[0].alertid]);
    // Deleting the preset detaches it from the view.
    await call('DELETE', `/v1/config/presetalert/${preset.json.presetid}`);
    const after = await call('GET', `/v1/config/view/${view.json.viewid}`);
    assert.deepEqual(after.json.presetids, []);
    assert.deepEqual(after.json.channels, []);
  });
});

describe('authentication and tenancy', () => {
  test('every service key form works; no key or another kind of key is refused', async () => {
    const good: Array<Record<string, string>> = [{ servicekey: org.serviceKey }, { authorization: basic(org.serviceKey) }, { authorization: `Token ${org.serviceKey}` }];
    for (const headers of good) {
      assert.equal((await request(`${server.url}/v1/config/view`, { headers })).status, 200);
    }
    const bad: Array<Record<string, string>> = [{}, { servicekey: org.ingestionKey }, { servicekey: 'ffffffffffffffffffffffffffffffff' }];
    for (const headers of bad) {
      const reply = await request(`${server.url}/v1/config/view`, { headers });
      assert.equal(reply.status, 401);
    }
  });

  test("an organisation never reads or changes another's configuration", async () => {
    const other = await server.createOrg('other tenant');
    const mine = await call('POST', '/v1/config/view', { name: 'mine', query: 'x' });
    const myPreset = await call('POST', '/v1/config/presetalert', { name: 'mine', channels: [] });
    const theirs = (method: string, path: string, body?: unknown) => call(method, path, body, other.serviceKey);
    assert.deepEqual((await theirs('GET', '/v1/config/view')).json, []);
    assert.deepEqual((await theirs('GET', '/v1/config/presetalert')).json, []);
    assert.equal((await theirs('GET', `/v1/config/view/${mine.json.viewid}`)).status, 404);
    assert.equal((await theirs('PUT', `/v1/config/view/${mine.json.viewid}`, { name: 'stolen', query: 'y' })).status, 400);
    assert.equal((await theirs('DELETE', `/v1/config/view/${mine.json.viewid}`)).status, 404);
    assert.equal((await theirs('GET', `/v1/config/presetalert/${myPreset.json.presetid}`)).status, 404);
    assert.equal((await theirs('DELETE', `/v1/config/presetalert/${myPreset.json.presetid}`)).status, 404);
    const attach = await theirs('POST', '/v1/config/view', { name: 'borrow', query: 'x', presetid: myPreset.json.presetid });
    assert.equal(attach.status, 400, "another organisation's preset cannot be attached");
    assert.equal((await call('GET', `/v1/config/view/${mine.json.viewid}`)).json.name, 'mine');
  });
});

describe('concurrency', () => {
  test('concurrent writes never lose an update', async () => {
    const before = (await call('GET', '/v1/config/view')).json.length;
    const created = await Promise.all(Array.from({ length: 40 }, (_, i) => call('POST', '/v1/config/view', { name: `parallel ${i}`, query: 'x' })));
    assert.ok(created.every((reply) => reply.status === 200));
    assert.equal((await call('GET', '/v1/config/view')).json.length, before + 40);
    await Promise.all(created.map((reply, i) => call('PUT', `/v1/config/view/${reply.json.viewid}`, { name: `renamed ${i}`, apps: [`a${i}`] })));
    const names = new Set((await call('GET', '/v1/config/view')).json.map((view: { name: string }) => view.name));
    for (let i = 0; i < 40; i++) assert.ok(names.has(`renamed ${i}`));
  });
});
