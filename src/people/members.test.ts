import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ParsedMail } from 'mailparser';
import { type Reply, type TestServer, eventually, request, startTestServer } from '../testing/harness.js';
import { startSmtpReceiver } from '../testing/receivers.js';
import { addMember } from './member-command.js';

/**
 * The members API as Mezmo's clients call it (service key, JSON, creates answer 200), and what a
 * person does with it: the invitation e-mail at a real SMTP server, its one-time link, password
 * sign-in and reset, and sessions that end when a member is demoted or removed.
 */

const PUBLIC_URL = 'http://logstead.example.test:8080';
const INVITE_HOURS = 5;

let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;

const json = (body: unknown) => ({ 'content-type': 'application/json', body: JSON.stringify(body) });
async function asKey(method: string, path: string, body?: unknown, key = server.org.serviceKey): Promise<Reply> {
  const { body: text, ...type } = body === undefined ? { body: undefined } : json(body);
  return request(`${server.url}${path}`, { method, headers: { servicekey: key, ...type }, body: text });
}
async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  return request(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}
const cookieOf = (reply: Reply) => (reply.headers.get('set-cookie') ?? '').split(';')[0];
const withCookie = (cookie: string) => ({ headers: { cookie } });
const member = (email: string) => `/v1/config/members/${encodeURIComponent(email)}`;

/** The one link an invitation or reset e-mail carries, after checking it is the only one, in text and HTML alike. */
function onlyLink(mail: ParsedMail): URL {
  const inText = new Set((mail.text ?? '').match(/https?:\/\/[^\s"'<>]+/g) ?? []);
  const inHtml = new Set([...String(mail.html || '').matchAll(/href="([^"]+)"/g)].map((match) => match[1].replace(/&amp;/g, '&').replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code)))));
  assert.equal(inText.size, 1, `one link in the text: ${mail.text}`);
  assert.deepEqual([...inHtml], [...inText], 'the HTML carries the same single link');
  const link = new URL([...inText][0]);
  assert.equal(`${link.origin}${link.pathname}`, `${PUBLIC_URL}/password`, 'the link is {LOGSTEAD_PUBLIC_URL}/password');
  assert.deepEqual([...link.searchParams.keys()], ['token']);
  assert.ok(link.searchParams.get('token')!.length >= 40, 'a long random token');
  return link;
}

/** The next e-mail to `to` that has not been looked at before. */
const seen = new Set<ParsedMail>();
async function mailTo(to: string, subject: RegExp): Promise<ParsedMail> {
  const mail = await eventually(() => smtp.messages.find((message) => !seen.has(message) && message.to && JSON.stringify(message.to).includes(to) && subject.test(message.subject ?? '')), 10_000, `an e-mail to ${to}`);
  seen.add(mail);
  return mail;
}

const token = (link: URL) => link.searchParams.get('token')!;
/** Opens a link the way a person does (GET /password), on the server's real address. */
const open = (link: URL) => request(`${server.url}${link.pathname}${link.search}`);

before(async () => {
  smtp = await startSmtpReceiver();
  server = await startTestServer({ LOGSTEAD_SMTP_URL: smtp.url, LOGSTEAD_PUBLIC_URL: PUBLIC_URL, LOGSTEAD_INVITE_HOURS: String(INVITE_HOURS), LOGSTEAD_SIGNIN_FAILURES_PER_ADDRESS: '1000' });
});
after(async () => {
  await server?.close();
  await smtp?.close();
});

describe('the members API, as Mezmo clients call it', () => {
  test('create, list, get, put and delete', async () => {
    const group = await asKey('POST', '/v1/config/groups', { name: 'crud group', access_scopes: 'app:crud' });
    const created = await asKey('POST', '/v1/config/members', { email: 'Alice.Crud@Example.com', role: 'member', groups: [] });
    assert.equal(created.status, 200, created.text);
    assert.equal(created.json.email, 'alice.crud@example.com', 'addresses are kept in lower case');
    assert.equal(created.json.role, 'member');
    assert.deepEqual(created.json.groups, []);
    assert.equal(created.json.active, false, 'no password chosen yet');
    assert.deepEqual(created.json.invitation, { sent: true, detail: created.json.invitation.detail });

    const list = await asKey('GET', '/v1/config/members');
    assert.equal(list.status, 200);
    assert.ok(Array.isArray(list.json));
    assert.deepEqual(list.json.find((found: { email: string }) => found.email === 'alice.crud@example.com')?.role, 'member');
    for (const spelling of ['alice.crud@example.com', 'ALICE.CRUD@example.COM']) {
      const one = await asKey('GET', member(spelling));
      assert.equal(one.status, 200, spelling);
      assert.equal(one.json.email, 'alice.crud@example.com');
    }

    const demoted = await asKey('PUT', member('alice.crud@example.com'), { role: 'readonly' });
    assert.equal(demoted.status, 200, demoted.text);
    assert.equal(demoted.json.role, 'readonly');
    const grouped = await asKey('PUT', member('Alice.Crud@example.com'), { groups: [group.json.id] });
    assert.equal(grouped.status, 200, grouped.text);
    assert.deepEqual(grouped.json.groups, [group.json.id]);
    assert.equal(grouped.json.role, 'readonly', 'a PUT of groups keeps the role');
    // Mezmo's clients may name a group by name too.
    const byName = await asKey('PUT', member('alice.crud@example.com'), { role: 'admin', groups: ['crud group'] });
    assert.equal(byName.status, 200, byName.text);
    assert.deepEqual([byName.json.role, byName.json.groups], ['admin', [group.json.id]]);
    assert.equal((await asKey('GET', member('alice.crud@example.com'))).json.role, 'admin', 'the change is kept');

    const deleted = await asKey('DELETE', member('ALICE.crud@example.com'));
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal((await asKey('GET', member('alice.crud@example.com'))).status, 404);
    assert.equal((await asKey('DELETE', member('alice.crud@example.com'))).status, 404);
    assert.equal((await asKey('PUT', member('alice.crud@example.com'), { role: 'member' })).status, 404);
    assert.ok(!(await asKey('GET', '/v1/config/members')).text.includes('alice.crud@example.com'));
  });

  test('a duplicate address, in any case, is a 409', async () => {
    assert.equal((await asKey('POST', '/v1/config/members', { email: 'dup@example.com', role: 'readonly' })).status, 200);
    for (const email of ['dup@example.com', 'DUP@Example.COM', '  Dup@example.com ']) {
      const again = await asKey('POST', '/v1/config/members', { email, role: 'member' });
      assert.equal(again.status, 409, `${email}: ${again.text}`);
      assert.equal(again.json.code, 'Conflict');
    }
    assert.equal((await asKey('GET', member('dup@example.com'))).json.role, 'readonly', 'the first stays as it was');
    // Another organisation may have the same address.
    const other = await server.createOrg('dup elsewhere');
    assert.equal((await asKey('POST', '/v1/config/members', { email: 'DUP@example.com', role: 'member' }, other.serviceKey)).status, 200);
  });

  test("an unknown role, a malformed e-mail or an unknown group is a Joi-style 400 naming the field", async () => {
    await asKey('POST', '/v1/config/members', { email: 'target.bad@example.com', role: 'member' });
    const cases: Array<[string, string, string, unknown, string]> = [
      ['POST', '/v1/config/members', 'an unknown role', { email: 'new.bad@example.com', role: 'superuser' }, 'role'],
      ['POST', '/v1/config/members', 'owner', { email: 'new.bad@example.com', role: 'owner' }, 'role'],
      ['POST', '/v1/config/members', 'a malformed e-mail', { email: 'not-an-address', role: 'member' }, 'email'],
      ['POST', '/v1/config/members', 'a missing e-mail', { role: 'member' }, 'email'],
      ['POST', '/v1/config/members', 'an unknown group', { email: 'new.bad@example.com', role: 'member', groups: ['no such group'] }, 'groups'],
      ['PUT', member('target.bad@example.com'), 'an unknown role', { role: 'root' }, 'role'],
      ['PUT', member('target.bad@example.com'), 'owner', { role: 'owner' }, 'role'],
      ['PUT', member('target.bad@example.com'), 'an unknown group', { groups: ['ffffffffff'] }, 'groups'],
    ];
    for (const [method, path, what, body, key] of cases) {
      const reply = await asKey(method, path, body);
      assert.equal(reply.status, 400, `${method} with ${what}: ${reply.text}`);
      assert.equal(reply.json.code, 'BadRequest');
      assert.equal(reply.json.details[0].key, key, `${method} with ${what}: ${reply.text}`);
      assert.match(reply.json.details[0].message, new RegExp(`"${key}"`), 'the message names the field, as Joi does');
      assert.match(reply.json.error, new RegExp(`"${key}"`));
    }
    assert.equal((await asKey('GET', member('new.bad@example.com'))).status, 404, 'nothing was created');
    const target = await asKey('GET', member('target.bad@example.com'));
    assert.deepEqual([target.json.role, target.json.groups], ['member', []], 'nothing was changed');
  });

  test('the owner role is neither given nor taken through the API, and the last owner stays', async () => {
    const org = await server.createOrg('owners');
    const key = org.serviceKey;
    await addMember(server.running.db, { account: org.account, email: 'first.owner@example.com', role: 'owner' }, { publicUrl: PUBLIC_URL, inviteHours: 1 });
    // Demoting the only owner, or removing them, leaves no owner.
    const demote = await asKey('PUT', member('first.owner@example.com'), { role: 'admin' }, key);
    assert.equal(demote.status, 400, `demoting the only owner: ${demote.text}`);
    assert.equal(demote.json.details[0].key, 'role');
    const remove = await asKey('DELETE', member('first.owner@example.com'), undefined, key);
    assert.equal(remove.status, 409, remove.text);
    assert.match(remove.json.error, /owner/);

    // With a second owner (which only an operator can make), neither owner's role is taken through the API.
    await addMember(server.running.db, { account: org.account, email: 'second.owner@example.com', role: 'owner' }, { publicUrl: PUBLIC_URL, inviteHours: 1 });
    const take = await asKey('PUT', member('second.owner@example.com'), { role: 'readonly' }, key);
    assert.equal(take.status, 400, `the owner role is not taken through the API: ${take.text}`);
    assert.equal(take.json.details[0].key, 'role');
    assert.equal((await asKey('GET', member('second.owner@example.com'), undefined, key)).json.role, 'owner');
    // A client that sends back the member it read (role owner unchanged) is not refused.
    const echoed = await asKey('PUT', member('second.owner@example.com'), { role: 'owner', groups: [] }, key);
    assert.equal(echoed.status, 200, echoed.text);
    assert.equal(echoed.json.role, 'owner');
    const give = await asKey('POST', '/v1/config/members', { email: 'third@example.com', role: 'owner' }, key);
    assert.equal(give.status, 400);

    // An owner who is not the last may be removed; then the other is the last again.
    assert.equal((await asKey('DELETE', member('first.owner@example.com'), undefined, key)).status, 200);
    const last = await asKey('DELETE', member('second.owner@example.com'), undefined, key);
    assert.equal(last.status, 409, last.text);
    assert.equal((await asKey('GET', member('second.owner@example.com'), undefined, key)).json.role, 'owner');
  });
});

describe('sessions end when a member is demoted or removed', () => {
  const alive = async (cookie: string) => (await request(`${server.url}/api/session`, withCookie(cookie))).status === 200;

  test('a demoted member is signed out at once; a promotion or a change of groups keeps the session', async () => {
    const dana = await server.signInAs('dana@example.com', 'admin');
    assert.equal((await request(`${server.url}/v1/config/keys`, withCookie(dana.cookie))).status, 200);
    const second = await post('/api/session', { email: dana.email, password: dana.password });
    assert.equal(second.status, 200);
    const group = await asKey('POST', '/v1/config/groups', { name: 'dana group', access_scopes: 'app:dana' });
    assert.equal((await asKey('PUT', member(dana.email), { groups: [group.json.id] })).status, 200);
    assert.ok(await alive(dana.cookie), 'a change of groups keeps the session');

    assert.equal((await asKey('PUT', member(dana.email), { role: 'member' })).status, 200);
    for (const cookie of [dana.cookie, cookieOf(second)]) {
      assert.equal(await alive(cookie), false, 'every session of the demoted member ended');
      assert.equal((await request(`${server.url}/v1/config/view`, withCookie(cookie))).status, 401);
    }
    const again = await post('/api/session', { email: dana.email, password: dana.password });
    assert.equal(again.status, 200, 'the member may sign in again');
    assert.equal(again.json.role, 'member', 'with the new role');
    assert.equal((await request(`${server.url}/v1/config/keys`, withCookie(cookieOf(again)))).status, 403);

    assert.equal((await asKey('PUT', member(dana.email), { role: 'admin' })).status, 200);
    assert.ok(await alive(cookieOf(again)), 'a promotion keeps the session');
    assert.equal((await request(`${server.url}/v1/config/keys`, withCookie(cookieOf(again)))).status, 200, 'and holds at once');
  });

  test('a removed member is signed out at once and cannot sign in', async () => {
    const erin = await server.signInAs('erin@example.com', 'member');
    assert.ok(await alive(erin.cookie));
    assert.equal((await asKey('DELETE', member(erin.email))).status, 200);
    assert.equal(await alive(erin.cookie), false);
    assert.equal((await request(`${server.url}/v1/config/view`, withCookie(erin.cookie))).status, 401);
    assert.equal((await post('/api/session', { email: erin.email, password: erin.password })).status, 401);
  });
});

describe('the invitation e-mail and its one-time link', () => {
  test('a new member gets one link to {LOGSTEAD_PUBLIC_URL}/password; it sets a password and signs in, once', async () => {
    const created = await asKey('POST', '/v1/config/members', { email: 'Gina@Example.com', role: 'member' });
    assert.equal(created.status, 200, created.text);
    assert.equal(created.json.invitation.sent, true, created.text);
    const mail = await mailTo('gina@example.com', /invited/);
    assert.deepEqual(mail.to && !Array.isArray(mail.to) ? mail.to.value.map((address) => address.address) : [], ['gina@example.com']);
    const link = onlyLink(mail);

    const page = await open(link);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    const about = await request(`${server.url}/api/password?token=${encodeURIComponent(token(link))}`);
    assert.equal(about.status, 200, about.text);
    assert.equal(about.json.purpose, 'invite');
    assert.equal(about.json.email, 'gina@example.com');
    const expiresIn = about.json.expires - Date.now();
    assert.ok(expiresIn > (INVITE_HOURS - 0.1) * 3_600_000 && expiresIn <= INVITE_HOURS * 3_600_000, `the link lasts LOGSTEAD_INVITE_HOURS (${expiresIn} ms)`);

    const tooShort = await post('/api/password', { token: token(link), password: 'short' });
    assert.equal(tooShort.status, 400, 'a refused password does not spend the link');
    assert.equal(tooShort.json.details[0].key, 'password');

    const chosen = await post('/api/password', { token: token(link), password: 'gina chose this' });
    assert.equal(chosen.status, 200, chosen.text);
    assert.equal(chosen.json.email, 'gina@example.com');
    assert.equal(chosen.json.role, 'member');
    assert.equal(typeof chosen.json.csrfToken, 'string');
    assert.match(chosen.headers.get('set-cookie') ?? '', /logstead_session=[^;]+;.*HttpOnly/i);
    assert.equal((await request(`${server.url}/v1/config/view`, withCookie(cookieOf(chosen)))).status, 200, 'signed in');
    assert.equal((await asKey('GET', member('gina@example.com'))).json.active, true);

    // Used: every way of using it again is a 410, and its page says so.
    const again = await post('/api/password', { token: token(link), password: 'someone else' });
    assert.equal(again.status, 410, again.text);
    assert.match(again.json.error, /already been used/);
    const usedPage = await open(link);
    assert.equal(usedPage.status, 410);
    assert.match(usedPage.headers.get('content-type') ?? '', /text\/html/);
    assert.match(usedPage.text, /already been used/);
    assert.match(usedPage.text, /<html/);
    assert.equal((await request(`${server.url}/api/password?token=${encodeURIComponent(token(link))}`)).status, 410);

    // The password works; the one the second use tried does not.
    const signIn = await post('/api/session', { email: 'GINA@example.com', password: 'gina chose this' });
    assert.equal(signIn.status, 200, signIn.text);
    assert.deepEqual([signIn.json.email, signIn.json.role, typeof signIn.json.csrfToken], ['gina@example.com', 'member', 'string']);
    assert.equal((await post('/api/session', { email: 'gina@example.com', password: 'someone else' })).status, 401);
  });

  test('two people using one link at once: exactly one succeeds', async () => {
    await asKey('POST', '/v1/config/members', { email: 'race@example.com', role: 'readonly' });
    const link = onlyLink(await mailTo('race@example.com', /invited/));
    const answers = await Promise.all([1, 2, 3].map((n) => post('/api/password', { token: token(link), password: `racer number ${n}` })));
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 410, 410]);
  });

  test('an expired link is a 410, with a page that says so', async () => {
    await asKey('POST', '/v1/config/members', { email: 'late@example.com', role: 'member' });
    const link = onlyLink(await mailTo('late@example.com', /invited/));
    const row = await server.running.db.selectFrom('members').select('id').where('email', '=', 'late@example.com').executeTakeFirstOrThrow();
    const moved = await server.running.db.updateTable('one_time_links').set({ expires_at: Date.now() - 1000 }).where('member_id', '=', row.id).where('used_at', 'is', null).executeTakeFirst();
    assert.equal(Number(moved.numUpdatedRows), 1);

    const chosen = await post('/api/password', { token: token(link), password: 'too late for this' });
    assert.equal(chosen.status, 410, chosen.text);
    assert.match(chosen.json.error, /expired/);
    const page = await open(link);
    assert.equal(page.status, 410);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    assert.match(page.text, /expired/);
    assert.equal((await asKey('GET', member('late@example.com'))).json.active, false);
    assert.equal((await post('/api/session', { email: 'late@example.com', password: 'too late for this' })).status, 401);
    // A made-up token is not "gone": it never was.
    assert.equal((await request(`${server.url}/password?token=${'x'.repeat(43)}`)).status, 404);
  });
});

describe('password reset by e-mail', () => {
  test('a reset link sets a new password, ends every other session, and the old password stops working', async () => {
    const frank = await server.signInAs('frank@example.com', 'member');
    const second = await post('/api/session', { email: frank.email, password: frank.password });
    assert.equal(second.status, 200);

    const asked = await post('/api/password/reset', { email: 'Frank@Example.com' });
    assert.equal(asked.status, 200, asked.text);
    const mail = await mailTo('frank@example.com', /reset/i);
    const link = onlyLink(mail);
    assert.equal((await request(`${server.url}/api/password?token=${encodeURIComponent(token(link))}`)).json.purpose, 'reset');
    // Until the link is used, nothing changes.
    assert.equal((await request(`${server.url}/api/session`, withCookie(frank.cookie))).status, 200);

    const reset = await post('/api/password', { token: token(link), password: 'frank has a new one' });
    assert.equal(reset.status, 200, reset.text);
    assert.equal(reset.json.email, 'frank@example.com');
    for (const cookie of [frank.cookie, cookieOf(second)]) assert.equal((await request(`${server.url}/api/session`, withCookie(cookie))).status, 401, 'an old session ended');
    assert.equal((await request(`${server.url}/api/session`, withCookie(cookieOf(reset)))).status, 200, 'the new session works');
    assert.equal((await post('/api/session', { email: frank.email, password: frank.password })).status, 401, 'the old password no longer signs in');
    assert.equal((await post('/api/session', { email: frank.email, password: 'frank has a new one' })).status, 200);
    assert.equal((await post('/api/password', { token: token(link), password: 'and another one' })).status, 410, 'the reset link works once');
  });

  test('a reset for an address that is no member answers the same and sends nothing', async () => {
    const known = await post('/api/password/reset', { email: 'frank@example.com' });
    const unknown = await post('/api/password/reset', { email: 'nobody.here@example.com' });
    assert.equal(unknown.status, 200);
    assert.equal(unknown.text.replace('nobody.here@example.com', 'X'), known.text.replace('frank@example.com', 'X'));
    await mailTo('frank@example.com', /reset/i);
    assert.ok(!smtp.messages.some((message) => JSON.stringify(message.to).includes('nobody.here@example.com')));
    const bad = await post('/api/password/reset', { email: 'not an address' });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.details[0].key, 'email');
  });
});

describe('the first start', () => {
  test("its owner link makes its opener the owner, once", async () => {
    const link = new URL(server.running.firstStart!.ownerLink);
    assert.equal(`${link.origin}${link.pathname}`, `${PUBLIC_URL}/password`);
    const about = await request(`${server.url}/api/password?token=${encodeURIComponent(token(link))}`);
    assert.equal(about.status, 200);
    assert.deepEqual([about.json.purpose, about.json.email], ['owner', null]);
    const noEmail = await post('/api/password', { token: token(link), password: 'the owner chose' });
    assert.equal(noEmail.status, 400);
    assert.equal(noEmail.json.details[0].key, 'email');

    const claimed = await post('/api/password', { token: token(link), password: 'the owner chose', email: 'Root@Example.com' });
    assert.equal(claimed.status, 200, claimed.text);
    assert.deepEqual([claimed.json.email, claimed.json.role, claimed.json.account], ['root@example.com', 'owner', server.org.account]);
    assert.equal((await request(`${server.url}/v1/config/members`, withCookie(cookieOf(claimed)))).status, 200, 'the owner reaches admin routes');
    assert.equal((await asKey('GET', member('root@example.com'))).json.role, 'owner');

    const twice = await post('/api/password', { token: token(link), password: 'a second owner', email: 'intruder@example.com' });
    assert.equal(twice.status, 410);
    assert.equal((await asKey('GET', member('intruder@example.com'))).status, 404, 'no second owner');
    assert.equal((await open(link)).status, 410);
  });
});

test('by default (LOGSTEAD_KEY_SIGN_IN unset) a service key still signs in, and /api/sign-in says which ways there are', async () => {
  const signIn = await post('/api/session', { serviceKey: server.org.serviceKey });
  assert.equal(signIn.status, 200, signIn.text);
  assert.deepEqual([signIn.json.role, signIn.json.email], ['owner', null]);
  assert.deepEqual((await request(`${server.url}/api/sign-in`)).json, { password: true, sso: false, serviceKey: true });
});
