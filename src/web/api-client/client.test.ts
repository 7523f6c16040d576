import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { ApiError, type Filters, SERVER_PREFIXES, api, exportUrl, filterParams, onSignedOut, requestInit, send, setCsrfToken, tailSocketUrl } from './client.js';

const none: Filters = { q: '', from: 1000, to: 2000, hosts: [], apps: [], levels: [], tags: [] };
const some: Filters = { q: 'level:error "timed out"', from: 1000, to: 2000, hosts: ['web-1', 'web-2'], apps: ['api'], levels: [], tags: ['prod'] };

describe('the requests the app makes', () => {
  test('a search: its newest page, its histogram and its facets, with the filters in one order', () => {
    assert.deepEqual(api.page.request(none, 500), { method: 'GET', path: '/v2/export?from=1000&to=2000&size=500&prefer=tail' });
    assert.equal(
      api.page.request(some, 500).path,
      '/v2/export?from=1000&to=2000&size=500&prefer=tail&query=level%3Aerror+%22timed+out%22&hosts=web-1%2Cweb-2&apps=api&tags=prod',
    );
    assert.equal(api.page.request(none, 500, 'c1').path, '/v2/export?from=1000&to=2000&size=500&prefer=tail&pagination_id=c1', 'an older page names its cursor');
    assert.equal(api.histogram.request(some).path, '/v1/histogram?from=1000&to=2000&query=level%3Aerror+%22timed+out%22&hosts=web-1%2Cweb-2&apps=api&tags=prod&buckets=60');
    assert.equal(api.facets.request(none).path, '/v1/viewer/facets?from=1000&to=2000');
    assert.equal(api.patterns.request(some).path, '/v1/viewer/patterns?from=1000&to=2000&limit=100&buckets=40&query=level%3Aerror+%22timed+out%22&hosts=web-1%2Cweb-2&apps=api&tags=prod');
    assert.equal(api.fields.request(some).path, '/v1/viewer/fields?from=1000&to=2000&top=5&query=level%3Aerror+%22timed+out%22&hosts=web-1%2Cweb-2&apps=api&tags=prod', 'the fields sidebar, five top values by default');
    assert.equal(api.fields.request(none, 10).path, '/v1/viewer/fields?from=1000&to=2000&top=10');
  });

  test('the export link and its e-mail, which share the search', () => {
    assert.equal(exportUrl(none), '/v1/export?from=1000&to=2000&size=10000');
    assert.equal(api.emailExport.request(none, 'a+b@example.com').path, '/v1/export?from=1000&to=2000&size=10000&email=a%2Bb%40example.com');
    assert.equal(filterParams(some, { size: '1' }), 'from=1000&to=2000&size=1&query=level%3Aerror+%22timed+out%22&hosts=web-1%2Cweb-2&apps=api&tags=prod');
  });

  test('context around a line, and more of it on one side', () => {
    const line = { _id: 'abc', _ts: 1234 };
    assert.equal(api.context.request(line, 'host', 20).path, '/v1/viewer/context?id=abc&ts=1234&by=host&before=20&after=20');
    assert.equal(api.context.request(line, 'both', 20, 'before').path, '/v1/viewer/context?id=abc&ts=1234&by=both&before=20&anchor=before');
    assert.equal(api.context.request(line, 'app', 20, 'after').path, '/v1/viewer/context?id=abc&ts=1234&by=app&after=20&anchor=after');
  });

  test('session, views, categories, alerts and usage', () => {
    assert.deepEqual(api.session.request(), { method: 'GET', path: '/api/session' });
    assert.deepEqual(api.signIn.request('k'), { method: 'POST', path: '/api/session', body: { serviceKey: 'k' } });
    assert.deepEqual(api.signOut.request(), { method: 'DELETE', path: '/api/session' });
    assert.deepEqual(api.views.request(), { method: 'GET', path: '/v1/config/view' });
    assert.deepEqual(api.saveView.request(undefined, { name: 'n' }), { method: 'POST', path: '/v1/config/view', body: { name: 'n' } });
    assert.deepEqual(api.saveView.request('v1', { name: 'n' }), { method: 'PUT', path: '/v1/config/view/v1', body: { name: 'n' } });
    assert.deepEqual(api.deleteView.request('v1'), { method: 'DELETE', path: '/v1/config/view/v1' });
    assert.deepEqual(api.presets.request(), { method: 'GET', path: '/v1/config/presetalert' });
    assert.deepEqual(api.categories.request(), { method: 'GET', path: '/v1/config/categories/views' });
    assert.deepEqual(api.createCategory.request('Ops'), { method: 'POST', path: '/v1/config/categories/views', body: { name: 'Ops' } });
    assert.deepEqual(api.testChannel.request({ integration: 'webhook' }), { method: 'POST', path: '/v1/alerts/test-channel', body: { channel: { integration: 'webhook' } } });
    assert.deepEqual(api.testChannel.request({ integration: 'webhook' }, 'v1').body, { channel: { integration: 'webhook' }, viewid: 'v1' });
    const rule = { query: 'x', hosts: [], apps: [], levels: [], tags: [], days: 2, channel: { integration: 'webhook' } };
    assert.deepEqual(api.backtest.request(rule), { method: 'POST', path: '/v1/alerts/backtest', body: rule });
    assert.equal(api.deliveries.request('a b').path, '/v1/alerts/deliveries?viewid=a%20b&limit=50');
    assert.equal(api.usage.request(5, 9).path, '/v1/usage?from=5&to=9');
  });

  test('sign-in, one-time links, members, groups, scope counts and the audit trail', () => {
    assert.deepEqual(api.signInOptions.request(), { method: 'GET', path: '/api/sign-in' });
    assert.deepEqual(api.signInWithPassword.request('a@example.com', 'pw'), { method: 'POST', path: '/api/session', body: { email: 'a@example.com', password: 'pw' } });
    assert.deepEqual(api.requestPasswordReset.request('a@example.com'), { method: 'POST', path: '/api/password/reset', body: { email: 'a@example.com' } });
    assert.equal(api.passwordLink.request('t+/=').path, '/api/password?token=t%2B%2F%3D');
    assert.deepEqual(api.choosePassword.request('t', 'pw'), { method: 'POST', path: '/api/password', body: { token: 't', password: 'pw' } });
    assert.deepEqual(api.choosePassword.request('t', 'pw', 'o@example.com').body, { token: 't', password: 'pw', email: 'o@example.com' }, "the owner link's e-mail");
    assert.deepEqual(api.members.request(), { method: 'GET', path: '/v1/config/members' });
    assert.deepEqual(api.inviteMember.request({ email: 'b@example.com', role: 'member', groups: ['g1'] }), {
      method: 'POST',
      path: '/v1/config/members',
      body: { email: 'b@example.com', role: 'member', groups: ['g1'] },
    });
    assert.deepEqual(api.updateMember.request('b+x@example.com', { role: 'readonly' }), { method: 'PUT', path: '/v1/config/members/b%2Bx%40example.com', body: { role: 'readonly' } });
    assert.equal(api.updateMember.request('b@example.com', { groups: [] }, true).path, '/v1/config/members/b%40example.com?widen=true', 'widening asked for');
    assert.deepEqual(api.removeMember.request('b@example.com'), { method: 'DELETE', path: '/v1/config/members/b%40example.com' });
    assert.deepEqual(api.groups.request(), { method: 'GET', path: '/v1/config/groups' });
    const body = { name: 'Ops', access_scopes: 'app:ops', apps: ['ops'], hosts: [] };
    assert.deepEqual(api.createGroup.request(body), { method: 'POST', path: '/v1/config/groups', body });
    assert.deepEqual(api.replaceGroup.request('g1', { ...body, access_scopes: ['a', 'b'] }), { method: 'PUT', path: '/v1/config/groups/g1', body: { ...body, access_scopes: ['a', 'b'] } });
    assert.equal(api.replaceGroup.request('g1', body, true).path, '/v1/config/groups/g1?widen=true');
    assert.deepEqual(api.deleteGroup.request('g1'), { method: 'DELETE', path: '/v1/config/groups/g1' });
    assert.deepEqual(api.deleteGroup.request('g1', true), { method: 'DELETE', path: '/v1/config/groups/g1?widen=true' });
    assert.equal(api.lineCount.request('app:ops', 5, 9).path, '/v1/histogram?from=5&to=9&buckets=1&query=app%3Aops');
    assert.equal(api.lineCount.request('', 5, 9, { apps: ['a', 'b'], hosts: ['h'] }).path, '/v1/histogram?from=5&to=9&buckets=1&apps=a%2Cb&hosts=h', 'within exact lists');
    assert.equal(api.lineCount.request('', 5, 9).path, '/v1/histogram?from=5&to=9&buckets=1', 'every line');
    assert.equal(api.audit.request({}).path, '/v1/config/audit?limit=50');
    assert.equal(api.audit.request({ actor: 'a@example.com', resource: 'group' }, '42').path, '/v1/config/audit?limit=50&actor=a%40example.com&resource=group&next=42');
  });

  test("live tail's socket is on the page's host, wss under https, with the search's filters", () => {
    assert.equal(tailSocketUrl(none, { protocol: 'http:', host: 'logs.example:8080' }), 'ws://logs.example:8080/ws/tail?');
    assert.equal(tailSocketUrl(some, { protocol: 'https:', host: 'logs.example' }), 'wss://logs.example/ws/tail?q=level%3Aerror+%22timed+out%22&hosts=web-1%2Cweb-2&apps=api&tags=prod');
  });

  test('every path the app calls is under a prefix the development proxy forwards', () => {
    const paths = [
      api.page.request(none, 1).path,
      api.usage.request(1, 2).path,
      api.session.request().path,
      api.views.request().path,
      api.signInOptions.request().path,
      api.passwordLink.request('t').path,
      api.members.request().path,
      api.audit.request({}).path,
      new URL(tailSocketUrl(none, { protocol: 'http:', host: 'h' })).pathname];
    for (const path of paths) assert.ok(SERVER_PREFIXES.some((prefix) => path.startsWith(`${prefix}/`)), path);
  });

  test('the fetch options: JSON only with a body, the CSRF token on every call once signed in, and the cookie', () => {
    assert.deepEqual(requestInit({ method: 'GET', path: '/x' }, ''), { method: 'GET', headers: {}, body: undefined, credentials: 'same-origin' });
    assert.deepEqual(requestInit({ method: 'POST', path: '/x', body: { a: 1 } }, 't0k'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': 't0k' },
      body: '{"a":1}',
      credentials: 'same-origin',
    });
    assert.deepEqual(requestInit({ method: 'GET', path: '/x' }, 't0k').headers, { 'x-csrf-token': 't0k' });
  });
});

describe('sending', () => {
  const realFetch = globalThis.fetch;
  const sent: Array<{ url: string; init: RequestInit | undefined }> = [];
  let answer: () => Response;
  beforeEach(() => {
    sent.length = 0;
    Object.defineProperty(globalThis, 'window', { value: new EventTarget(), configurable: true });
    globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
      sent.push({ url: String(input), init });
      return answer();
    };
  });
  afterEach(() => {
    globalThis.fetch = realFetch;
    setCsrfToken('');
  });

  test('answers with the parsed JSON, and carries the token once it is set', async () => {
    answer = () => Response.json([{ name: 'Ops' }]);
    assert.deepEqual(await api.categories(), [{ name: 'Ops' }]);
    setCsrfToken('s3cret');
    await api.categories();
    assert.equal((sent[1].init?.headers as Record<string, string>)['x-csrf-token'], 's3cret');
    assert.equal(sent[1].url, '/v1/config/categories/views');
  });

  test('a refusal throws ApiError with the body; a body that is not JSON becomes its error text', async () => {
    answer = () => Response.json({ error: 'bad query', position: 4, expected: '")"' }, { status: 400 });
    await assert.rejects(api.facets(none), (error: unknown) => error instanceof ApiError && error.status === 400 && error.body.position === 4 && error.message === 'bad query');
    answer = () => new Response('upstream down', { status: 502 });
    await assert.rejects(send({ method: 'GET', path: '/v1/usage' }), (error: unknown) => error instanceof ApiError && error.body.error === 'upstream down');
    answer = () => new Response('', { status: 503, statusText: 'Service Unavailable' });
    await assert.rejects(send({ method: 'GET', path: '/v1/usage' }), (error: unknown) => error instanceof ApiError && error.body.error === 'Service Unavailable');
  });

  test('a 401 signs the app out, except from the sign-in calls themselves (a wrong key or password)', async () => {
    let signedOut = 0;
    const stop = onSignedOut(() => signedOut++);
    answer = () => Response.json({ error: 'unauthorised' }, { status: 401 });
    await assert.rejects(api.views());
    assert.equal(signedOut, 1);
    await assert.rejects(api.signIn('wrong'));
    await assert.rejects(api.signInWithPassword('a@example.com', 'wrong'));
    await assert.rejects(api.passwordLink('t'));
    await assert.rejects(api.choosePassword('t', 'pw'));
    await assert.rejects(api.session());
    assert.equal(signedOut, 1);
    stop();
    await assert.rejects(api.views());
    assert.equal(signedOut, 1, 'a listener removed hears nothing');
  });
});
