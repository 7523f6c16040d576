/**
 * Nothing a scoped person sets up carries out what they could not read (issue 39), shown
 * differentially over the write paths, as scope-differential.test.ts shows it over the read paths.
 *
 * Generated: a view (or a preset alert attached to one) with a webhook is made by one person and
 * edited by others (renamed, given a new target, given another rule), and its setter is sometimes
 * removed. Then lines of every app arrive, and each delivery must carry exactly what the oracle
 * says: the view's lines inside the scope of its last saver AND of whoever set the target now,
 * nothing once that setter is gone, and nothing ever to a target that was replaced. The oracle is
 * the in-memory predicate (lineMatcher) over the lines sent.
 *
 * Fixed: the red-team cases of the issue (a preset retargeted by a scoped member, an owner's rename
 * of a member's view, a removed member's alerts, a key made by a scoped admin, secrets shown to a
 * readonly member, the delivery log, the index-rate alert).
 *
 * Seeded (LOGSTEAD_SETTER_SEED). Runs on SQLite and, in `npm run test:postgres`, on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { type MemberSession, type Reply, type TestServer, callJson, eventually, request, startTestServer } from '../testing/harness.js';
import { startHttpReceiver, startSmtpReceiver } from '../testing/receivers.js';
import { type LineFilters, lineMatcher } from '../query/line-matcher.js';
import type { SearchableLine } from '../query/searchable.js';

const SEED = Number(process.env.LOGSTEAD_SETTER_SEED ?? 20_261_128);
const MINUTE = 60_000;
let clock = Math.floor(Date.now() / MINUTE) * MINUTE;

let server: TestServer;
let hooks: Awaited<ReturnType<typeof startHttpReceiver>>;
let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
let billingGroup: string;

before(async () => {
  hooks = await startHttpReceiver();
  smtp = await startSmtpReceiver();
  server = await startTestServer({ LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS: 'true', LOGSTEAD_DELIVERY_RETRY_BASE_MS: '1000', LOGSTEAD_SMTP_URL: smtp.url }, { now: () => clock });
  billingGroup = (await api('POST', '/v1/config/groups', 'key', { name: 'billing', access_scopes: 'app:billing' })).json.id;
  // An owner who sees every line, so that the owners the cases make may be scoped (the last unscoped owner may not be).
  await server.signInAs('first-owner@example.com', 'owner');
});
after(async () => {
  await server?.close();
  await Promise.all([hooks?.close(), smtp?.close()]);
});

type Who = MemberSession | 'key' | { serviceKey: string };

async function api(method: string, path: string, who: Who, body?: unknown): Promise<Reply> {
  const headers = who === 'key' ? { servicekey: server.org.serviceKey } : 'serviceKey' in who ? { servicekey: who.serviceKey } : who.headers(method !== 'GET');
  return callJson(server.url, method, path, headers, body);
}

const ok = (reply: Reply, what: string) => {
  assert.ok(reply.status === 200, `${what}: ${reply.status} ${reply.text}`);
  return reply.json;
};

let people = 0;
/** A new person of this role, scoped to `app:billing` or not; fresh for every case, so removals stay within it. */
async function person(role: 'owner' | 'admin' | 'member' | 'readonly', scoped: boolean): Promise<MemberSession> {
  return server.signInAs(`p${++people}-${role}${scoped ? '-scoped' : ''}@example.com`, role, scoped ? { groups: [billingGroup] } : {});
}

const APPS = ['billing', 'payroll', 'ops'];
let marker = 0;
/** Sends one line of each app (and level) in one request, in a new alert window; returns them as the oracle sees them. */
async function sendEveryApp(): Promise<Array<SearchableLine & { marker: string }>> {
  clock += MINUTE;
  const lines = APPS.flatMap((app) => ['ERROR', 'INFO'].map((level) => ({ line: `event m${++marker} of ${app}`, app, level, marker: `m${marker}` })));
  const reply = await request(`${server.url}/logs/ingest?hostname=h1`, {
    method: 'POST',
    headers: { apikey: server.org.ingestionKey, 'content-type': 'application/json' },
    body: JSON.stringify({ lines: lines.map(({ line, app, level }) => ({ line, app, level, timestamp: Date.now() - 1000 })) }),
  });
  assert.equal(reply.status, 200, reply.text);
  return lines.map((line) => ({ ...line, host: 'h1', tags: [], meta: {}, size: line.line.length }) as never);
}

const received = (path: string) => hooks.received.filter((hook) => hook.path === path).map((hook) => JSON.parse(hook.body));
const markers = (body: { line_objects: Array<{ _line: string }> }) => body.line_objects.map((line) => /m\d+/.exec(line._line)![0]).sort();
const settle = () => new Promise((resolve) => setTimeout(resolve, 400));

const channelTo = (path: string, triggerinterval = '1m') => ({ integration: 'webhook', url: `${hooks.url}${path}`, method: 'post', operator: 'presence', triggerlimit: 1, triggerinterval, immediate: true, terminal: false });

/** What a scope lets through, in the oracle's terms: null is every line. */
const scopeOf = (scoped: boolean) => (scoped ? ['app:billing'] : null);
const inside = (scope: string[] | null) => (scope === null ? () => true : lineMatcher({ query: scope.join(' OR ') }, null));

describe('generated: setters, edits and removals', () => {
  test('every delivery carries exactly the view\'s lines that its last saver and its target\'s setter may both see', { timeout: 300_000 }, async () => {
    const kinds = fc.constantFrom<'rename' | 'retarget' | 'rule'>('rename', 'retarget', 'rule');
    const actor = fc.record({ role: fc.constantFrom<'owner' | 'admin' | 'member'>('owner', 'admin', 'member'), scoped: fc.boolean(), key: fc.boolean() });
    const scenario = fc.record({
      onPreset: fc.boolean(),
      filters: fc.constantFrom<LineFilters>({ apps: ['payroll'] }, { apps: ['billing'] }, { query: 'level:error' }, { apps: ['billing', 'payroll'] }),
      maker: actor,
      edits: fc.array(fc.record({ by: actor, kind: kinds }), { minLength: 1, maxLength: 3 }),
      removeSetter: fc.boolean(),
    });
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const run = ++runs;
        /** Each actor as a signed-in person, or a service key that person made (bounded by them). */
        const become = async (who: { role: 'owner' | 'admin' | 'member'; scoped: boolean; key: boolean }) => {
          const session = await person(who.role, who.scoped);
          if (!who.key || who.role !== 'admin') return { session, as: session as Who, scope: scopeOf(who.scoped) };
          const made = ok(await api('POST', '/v1/config/keys', session, { type: 'service', name: `k${run}` }), 'a key made by an admin');
          return { session, as: { serviceKey: made.key } as Who, scope: scopeOf(who.scoped) };
        };
        const maker = await become(s.maker);
        let target = `/gen-${run}-0`;
        const targets = [target];
        let setter = maker;
        let saver = maker;
        let viewid: string;
        let presetid: string | undefined;
        const name = `gen ${run}`;
        if (s.onPreset) {
          presetid = ok(await api('POST', '/v1/config/presetalert', maker.as, { name, channels: [channelTo(target)] }), 'preset').presetid;
          viewid = ok(await api('POST', '/v1/config/view', maker.as, { name, ...s.filters, presetid }), 'view with preset').viewid;
        } else {
          viewid = ok(await api('POST', '/v1/config/view', maker.as, { name, ...s.filters, channels: [channelTo(target)] }), 'view').viewid;
        }
        for (const [index, edit] of s.edits.entries()) {
          const editor = await become(edit.by);
          const next = edit.kind === 'retarget' ? `/gen-${run}-${index + 1}` : target;
          const channel = { ...channelTo(next, edit.kind === 'rule' ? (index % 2 ? '1m' : '5m') : '1m') };
          if (s.onPreset) {
            const current = ok(await api('GET', `/v1/config/presetalert/${presetid}`, editor.as), 'preset read');
            ok(await api('PUT', `/v1/config/presetalert/${presetid}`, editor.as, { name: `${name} ${index}`, channels: [{ ...channel, alertid: current.channels[0].alertid }] }), 'preset edit');
          } else {
            const current = ok(await api('GET', `/v1/config/view/${viewid}`, editor.as), 'view read');
            ok(await api('PUT', `/v1/config/view/${viewid}`, editor.as, { name: `${name} ${index}`, ...s.filters, channels: [{ ...channel, alertid: current.channels[0].alertid }] }), 'view edit');
            saver = editor;
          }
          if (edit.kind === 'retarget') {
            setter = editor;
            target = next;
            targets.push(target);
          }
        }
        const removed = s.removeSetter && setter.session.role !== 'owner';
        if (removed) ok(await api('DELETE', `/v1/config/members/${setter.session.email}`, 'key'), 'removal');

        const lines = await sendEveryApp();
        const view = lineMatcher(s.filters, null);
        const expected = removed ? [] : lines.filter((line) => view(line) && inside(saver.scope)(line) && inside(setter.scope)(line)).map((line) => line.marker).sort();
        if (expected.length) await eventually(() => (received(target).length ? true : undefined), 10_000, `the delivery of run ${run}`);
        await settle();
        const story = `run ${run}: ${JSON.stringify(s)}`;
        assert.deepEqual(received(target).map(markers), expected.length ? [expected] : [], `what the target received, ${story}`);
        for (const old of targets.slice(0, -1)) assert.deepEqual(received(old), [], `a replaced target receives nothing, ${story}`);
        const shown = ok(await api('GET', `/v1/config/view/${viewid}`, 'key'), 'view read by the key').channels[0];
        if (removed) assert.match(shown.held, /removed/, `the held channel says so, ${story}`);
        else assert.equal(shown.held, undefined, story);
      }),
      { seed: SEED, numRuns: Number(process.env.LOGSTEAD_SETTER_RUNS ?? 12) },
    );
  });
});

describe('fixed: the red-team cases', () => {
  test('a scoped member who retargets the owner\'s preset gets none of the payroll view\'s lines', async () => {
    const owner = await person('owner', false);
    const scoped = await person('member', true);
    const presetid = ok(await api('POST', '/v1/config/presetalert', owner, { name: 'payroll preset', channels: [channelTo('/red-preset-owner')] }), 'preset').presetid;
    ok(await api('POST', '/v1/config/view', owner, { name: 'payroll', apps: ['payroll'], presetid }), 'view');
    ok(await api('PUT', `/v1/config/presetalert/${presetid}`, scoped, { name: 'payroll preset', channels: [channelTo('/red-preset-mine')] }), 'the member\'s change');
    const preset = ok(await api('GET', `/v1/config/presetalert/${presetid}`, owner), 'preset');
    assert.deepEqual(preset.channels[0].setter, { email: scoped.email });
    await sendEveryApp();
    await settle();
    assert.deepEqual(received('/red-preset-mine'), []);
    assert.deepEqual(received('/red-preset-owner'), []);
  });

  test('a target whose setter may see none of the view\'s lines says so when saved and when read', async () => {
    const owner = await person('owner', false);
    const scoped = await person('member', true);
    await sendEveryApp(); // payroll lines in the last day
    const view = ok(await api('POST', '/v1/config/view', owner, { name: 'payroll quiet', apps: ['payroll'] }), 'view');
    const saved = ok(await api('PUT', `/v1/config/view/${view.viewid}`, scoped, { name: 'payroll quiet', apps: ['payroll'], channels: [channelTo('/red-quiet')] }), 'the member adds a target');
    // The member is told nothing: that would say payroll lines exist, which they may not see.
    assert.equal(saved.warnings, undefined);
    const read = ok(await api('GET', `/v1/config/view/${view.viewid}`, owner), 'read');
    assert.deepEqual(read.warnings?.map((warning: { code: string }) => warning.code), ['setter-sees-none']);
    assert.ok(read.warnings[0].message.includes(scoped.email), read.warnings[0].message);
    // A view whose lines the setter does see carries no such warning.
    const seen = ok(await api('POST', '/v1/config/view', scoped, { name: 'billing loud', apps: ['billing'], channels: [channelTo('/red-loud')] }), 'view');
    assert.equal(seen.warnings, undefined);
  });

  test('an e-mail target set by a scoped member carries only their lines', async () => {
    const scoped = await person('member', true);
    const presetid = ok(await api('POST', '/v1/config/presetalert', 'key', { name: 'mail preset', channels: [channelTo('/unused')] }), 'preset').presetid;
    ok(await api('POST', '/v1/config/view', 'key', { name: 'mail view', apps: ['payroll', 'billing'], presetid }), 'view');
    const to = `red-${Date.now()}@example.com`;
    ok(await api('PUT', `/v1/config/presetalert/${presetid}`, scoped, { name: 'mail preset', channels: [{ integration: 'email', emails: [to], triggerlimit: 1, triggerinterval: '1m', immediate: true, terminal: false }] }), 'retarget to e-mail');
    await sendEveryApp();
    const mail = await eventually(() => smtp.messages.find((message) => JSON.stringify(message.to).includes(to)), 10_000, 'the e-mail');
    assert.match(mail.text ?? '', /of billing/);
    assert.doesNotMatch(mail.text ?? '', /payroll/);
  });

  test('an owner\'s rename of a scoped member\'s view does not widen the member\'s webhook', async () => {
    const owner = await person('owner', false);
    const scoped = await person('member', true);
    const view = ok(await api('POST', '/v1/config/view', scoped, { name: 'errors', query: 'level:error', channels: [channelTo('/red-rename')] }), 'view');
    const read = ok(await api('GET', `/v1/config/view/${view.viewid}`, owner), 'read');
    ok(await api('PUT', `/v1/config/view/${view.viewid}`, owner, { name: 'errors, renamed', query: 'level:error', channels: read.channels }), 'rename');
    const lines = await sendEveryApp();
    await eventually(() => (received('/red-rename').length ? true : undefined), 10_000, 'the delivery');
    await settle();
    const billingErrors = lines.filter((line) => line.app === 'billing' && line.level === 'ERROR').map((line) => line.marker);
    assert.deepEqual(received('/red-rename').map(markers), [billingErrors]);
  });

  test('a removed member\'s alert stops, says so, and delivers again once an admin takes it over', async () => {
    const admin = await person('admin', false);
    const leaving = await person('member', false);
    const view = ok(await api('POST', '/v1/config/view', leaving, { name: 'leaver', apps: ['ops'], channels: [channelTo('/red-leaver')] }), 'view');
    ok(await api('DELETE', `/v1/config/members/${leaving.email}`, admin), 'removal');
    await sendEveryApp();
    await settle();
    assert.deepEqual(received('/red-leaver'), []);
    const channel = ok(await api('GET', `/v1/config/view/${view.viewid}`, admin), 'read').channels[0];
    assert.deepEqual(channel.setter, { removed: true });
    assert.match(channel.held, /removed/);
    const log = ok(await api('GET', `/v1/alerts/deliveries?viewid=${view.viewid}`, admin), 'log');
    assert.equal(log[0].status, 'failed');
    assert.equal(log[0].attempts[0].outcome, 'held');
    // A member (not an admin) may not take it over; an admin may, and becomes the setter.
    const member = await person('member', false);
    assert.equal((await api('POST', `/v1/config/view/${view.viewid}/alerts/${channel.alertid}/takeover`, member)).status, 403);
    const taken = ok(await api('POST', `/v1/config/view/${view.viewid}/alerts/${channel.alertid}/takeover`, admin), 'takeover');
    assert.deepEqual(taken.channels[0].setter, { email: admin.email });
    await sendEveryApp();
    await eventually(() => (received('/red-leaver').length ? true : undefined), 10_000, 'the delivery after the takeover');
  });

  test('a delivery queued before its setter was removed is not sent', async () => {
    // A receiver of its own, whose first answer is a 503: the delivery waits a second to retry.
    const flaky = await startHttpReceiver([503]);
    try {
      const leaving = await person('member', false);
      const view = ok(await api('POST', '/v1/config/view', leaving, { name: 'queued', apps: ['ops'], channels: [{ ...channelTo('/queued'), url: `${flaky.url}/queued` }] }), 'view');
      await sendEveryApp();
      await eventually(() => (flaky.received.length ? true : undefined), 10_000, 'the first attempt');
      // The setter goes before the retry.
      ok(await api('DELETE', `/v1/config/members/${leaving.email}`, 'key'), 'removal');
      const log = await eventually(async () => {
        const entries = ok(await api('GET', `/v1/alerts/deliveries?viewid=${view.viewid}`, 'key'), 'log');
        return entries[0]?.status === 'failed' ? entries : undefined;
      }, 10_000, 'the delivery to stop');
      assert.deepEqual(log[0].attempts.map((attempt: { outcome: string }) => attempt.outcome), ['will retry', 'held']);
      assert.match(log[0].attempts[1].detail, /^held/);
      assert.equal(flaky.received.length, 1, 'no retry reached the target');
    } finally {
      await flaky.close();
    }
  });

  test('a key made by a scoped admin holds their role and scope, and goes with them', async () => {
    const owner = await person('owner', false);
    const admin = await person('admin', true);
    const made = ok(await api('POST', '/v1/config/keys', admin, { type: 'service', name: 'scoped automation' }), 'key');
    assert.deepEqual([made.maker, made.role, made.scope], [admin.email, 'admin', ['app:billing']]);
    const key = { serviceKey: made.key };
    const removeOwner = await api('DELETE', `/v1/config/members/${owner.email}`, key);
    assert.equal(removeOwner.status, 403);
    assert.match(removeOwner.json.error, /admin/);
    await sendEveryApp();
    const exported = await api('GET', `/v1/export?from=0&to=${Date.now() + MINUTE}`, key);
    assert.equal(exported.status, 200);
    const apps = new Set(exported.text.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line)._app));
    assert.deepEqual([...apps], ['billing']);
    // A key made by the scoped key's maker through the key is bounded the same way.
    const child = ok(await api('POST', '/v1/config/keys', key, { type: 'service' }), 'a key made with the key');
    assert.deepEqual([child.maker, child.role], [admin.email, 'admin']);
    const listed = ok(await api('GET', '/v1/config/keys', 'key'), 'keys').find((entry: { id: string }) => entry.id === made.id);
    assert.deepEqual([listed.maker, listed.role, listed.scope], [admin.email, 'admin', ['app:billing']]);
    const cli = ok(await api('GET', '/v1/config/keys', 'key'), 'keys').find((entry: { maker: string | null; type: string }) => entry.maker === null && entry.type === 'service');
    assert.deepEqual([cli.role, cli.scope], ['owner', null], 'a key made by the operator keeps full rights');
    ok(await api('DELETE', `/v1/config/members/${admin.email}`, owner), 'removal');
    assert.equal((await api('GET', '/v1/config/view', key)).status, 401);
    assert.equal((await api('GET', '/v1/config/view', { serviceKey: child.key })).status, 401);
  });

  test('a key made by a demoted admin holds the lower role at once', async () => {
    const admin = await person('admin', false);
    const made = ok(await api('POST', '/v1/config/keys', admin, { type: 'service' }), 'key');
    ok(await api('PUT', `/v1/config/members/${admin.email}`, 'key', { role: 'readonly' }), 'demotion');
    const refused = await api('POST', '/v1/config/view', { serviceKey: made.key }, { name: 'x', query: 'x' });
    assert.equal(refused.status, 403);
    assert.match(refused.json.error, /readonly/);
  });

  test('secrets are masked for a readonly member, clear for those who may change them, and the mask sent back keeps them', async () => {
    const readonly = await person('readonly', false);
    const member = await person('member', false);
    const webhook = { ...channelTo('/red-secret'), headers: { Authorization: 'Bearer s3cret' } };
    const paging = { integration: 'pagerduty', key: 'routing-s3cret', triggerlimit: 1, triggerinterval: '1m', immediate: true, terminal: false };
    const view = ok(await api('POST', '/v1/config/view', member, { name: 'secrets', apps: ['ops'], channels: [webhook, paging] }), 'view');
    const presetid = ok(await api('POST', '/v1/config/presetalert', member, { name: 'secret preset', channels: [paging] }), 'preset').presetid;
    const masked = ok(await api('GET', `/v1/config/view/${view.viewid}`, readonly), 'read').channels;
    assert.deepEqual([masked[0].headers, masked[1].key], [{ Authorization: '********' }, '********']);
    assert.equal(ok(await api('GET', '/v1/config/view', readonly), 'list').find((v: { viewid: string }) => v.viewid === view.viewid).channels[0].headers.Authorization, '********');
    assert.equal(ok(await api('GET', `/v1/config/presetalert/${presetid}`, readonly), 'preset').channels[0].key, '********');
    assert.ok(!JSON.stringify(ok(await api('GET', '/v1/config/presetalert', readonly), 'presets')).includes('routing-s3cret'));
    const clear = ok(await api('GET', `/v1/config/view/${view.viewid}`, member), 'read').channels;
    assert.deepEqual([clear[0].headers, clear[1].key], [{ Authorization: 'Bearer s3cret' }, 'routing-s3cret']);
    // Sent back masked (as read by a reader who may not see it), the stored secret stays.
    ok(await api('PUT', `/v1/config/view/${view.viewid}`, member, { name: 'secrets 2', apps: ['ops'], channels: masked }), 'saved with the mask');
    const kept = ok(await api('GET', `/v1/config/view/${view.viewid}`, member), 'read').channels;
    assert.deepEqual([kept[0].headers, kept[1].key], [{ Authorization: 'Bearer s3cret' }, 'routing-s3cret']);
    const unknown = await api('POST', '/v1/config/view', member, { name: 'mask only', apps: ['ops'], channels: [{ ...webhook, headers: { Authorization: '********' } }] });
    assert.equal(unknown.status, 400);
    assert.match(unknown.json.error, /mask/);
    await sendEveryApp();
    const delivered = await eventually(() => hooks.received.find((hook) => hook.path === '/red-secret'), 10_000, 'the delivery');
    assert.equal(delivered.headers.authorization, 'Bearer s3cret');
  });

  test('the delivery log shows a scoped member only deliveries inside their scope and their own e-mailed exports', async () => {
    const scoped = await person('member', true);
    const other = await person('member', true);
    ok(await api('POST', '/v1/config/view', 'key', { name: 'payroll log', apps: ['payroll'], channels: [channelTo('/red-log-payroll')] }), 'payroll view');
    const own = ok(await api('POST', '/v1/config/view', scoped, { name: 'my log', query: 'level:error', channels: [channelTo('/red-log-own')] }), 'own view');
    await sendEveryApp();
    await eventually(() => (received('/red-log-payroll').length && received('/red-log-own').length ? true : undefined), 10_000, 'both deliveries');
    const mine = `mine-${Date.now()}@example.com`;
    const theirs = `theirs-${Date.now()}@example.com`;
    for (const [who, email] of [[scoped, mine], [other, theirs]] as const) {
      // An e-mailed export changes state, so the session sends its CSRF token with this GET.
      const reply = await request(`${server.url}/v1/export?from=0&to=${Date.now() + MINUTE}&email=${encodeURIComponent(email)}`, { headers: who.headers(true) });
      assert.equal(reply.status, 200, reply.text);
    }
    await eventually(() => (smtp.messages.some((m) => JSON.stringify(m.to).includes(mine)) && smtp.messages.some((m) => JSON.stringify(m.to).includes(theirs)) ? true : undefined), 15_000, 'both export e-mails');
    const log = ok(await api('GET', '/v1/alerts/deliveries?limit=1000', scoped), 'log');
    const text = JSON.stringify(log);
    assert.ok(log.some((entry: { viewid: string }) => entry.viewid === own.viewid), 'their own view\'s delivery');
    assert.ok(text.includes(mine), 'their own export');
    assert.ok(!text.includes('red-log-payroll') && !text.includes(theirs), `nothing outside: ${text}`);
    const everything = JSON.stringify(ok(await api('GET', '/v1/alerts/deliveries?limit=1000', 'key'), 'log'));
    assert.ok(everything.includes('red-log-payroll') && everything.includes(theirs), 'the unscoped key sees every delivery');
  });

  test('a scoped admin gives, changes and takes only access inside their own', async () => {
    // A team of their own (the shared billing group has scoped owners in it, whom only owners change).
    const team = ok(await api('POST', '/v1/config/groups', 'key', { name: `team ${people}`, access_scopes: 'app:billing' }), 'team').id;
    const admin = await person('admin', false);
    const unscoped = await person('member', false);
    const teammate = await person('member', false);
    for (const member of [admin, teammate]) ok(await api('PUT', `/v1/config/members/${member.email}`, 'key', { groups: [team] }), 'into the team');
    const refused = async (reply: Reply, what: string) => {
      assert.equal(reply.status, 403, `${what}: ${reply.status} ${reply.text}`);
      assert.match(reply.json.error, /access scope \("app:billing"\)/, what);
    };
    await refused(await api('POST', '/v1/config/members', admin, { email: `open-${people}@example.com`, role: 'admin' }), 'inviting someone who would see every line');
    ok(await api('POST', '/v1/config/members', admin, { email: `inside-${people}@example.com`, role: 'member', groups: [team] }), 'inviting someone inside the scope');
    await refused(await api('PUT', `/v1/config/members/${unscoped.email}`, admin, { role: 'readonly' }), 'changing someone who sees more');
    await refused(await api('DELETE', `/v1/config/members/${unscoped.email}`, admin), 'removing someone who sees more');
    const payroll = ok(await api('POST', '/v1/config/groups', admin, { name: `payroll ${people}`, access_scopes: 'app:payroll' }), 'a group with no members');
    await refused(await api('PUT', `/v1/config/members/${teammate.email}`, admin, { groups: [payroll.id] }), 'moving a teammate to payroll');
    await refused(await api('PUT', `/v1/config/members/${admin.email}?widen=true`, admin, { groups: [] }), 'widening themselves');
    await refused(await api('PATCH', `/v1/config/groups/${team}`, admin, { access_scopes: 'app:billing OR app:payroll' }), 'widening their own group');
    ok(await api('PUT', `/v1/config/members/${teammate.email}`, admin, { role: 'readonly' }), 'changing a teammate inside the scope');
    // Nothing refused was changed.
    const members = ok(await api('GET', '/v1/config/members', 'key'), 'members');
    const byEmail = (email: string) => members.find((member: { email: string }) => member.email === email);
    assert.deepEqual([byEmail(unscoped.email).role, byEmail(admin.email).groups, byEmail(teammate.email).groups], ['member', [team], [team]]);
    assert.equal(ok(await api('GET', `/v1/config/groups/${team}`, 'key'), 'group').access_scopes, 'app:billing');
  });

  test('a scoped admin may not set where the index-rate alert or the archive sends, nor end the archive', async () => {
    const admin = await person('admin', true);
    const rate = await api('PUT', '/v1/config/index-rate', admin, { max_lines: 10, threshold_alert: 'separate', frequency: 'hourly', enabled: true, channels: { webhook: [{ url: `${hooks.url}/rate` }] } });
    assert.equal(rate.status, 403);
    assert.match(rate.json.error, /scope/);
    const bucket = { integration: 's3', bucket: 'mine', endpoint: 'http://127.0.0.1:9', accesskey: 'a', secretkey: 'b' };
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const archive = await api(method, '/v1/config/archiving', admin, method === 'DELETE' ? undefined : bucket);
      assert.equal(archive.status, 403, `${method} /v1/config/archiving`);
      assert.match(archive.json.error, /scope/);
    }
    // An unscoped admin is not refused for that reason.
    const unscoped = await person('admin', false);
    assert.notEqual((await api('PUT', '/v1/config/index-rate', unscoped, { max_lines: 10, threshold_alert: 'separate', frequency: 'hourly', enabled: false })).status, 403);
  });
});
