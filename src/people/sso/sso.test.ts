import assert from 'node:assert/strict';
import fastifyCookie from '@fastify/cookie';
import Fastify from 'fastify';
import { after, before, describe, test } from 'node:test';
import type { NewAccount } from '../../accounts/accounts.js';
import { AuditTrail } from '../../audit/audit-trail.js';
import { SESSION_COOKIE } from '../../http/service-auth.js';
import { hashKey } from '../../lib/ids.js';
import { type TestServer, request, startTestServer } from '../../testing/harness.js';
import { CookieJar, type TestOpenIdProvider, authorizeAt, startOpenIdProvider } from '../../testing/openid-provider.js';
import { Groups } from '../groups.js';
import { Members } from '../members.js';
import { admit } from './admission.js';
import { ATTEMPT_COOKIE, ssoRoutes } from './sso-routes.js';

/**
 * Single sign-on against a real OpenID provider (oidc-provider) in this process, walked with
 * fetch as a browser would walk it (sso.e2e.test.ts walks it in Chromium). Provider A is the one
 * Logstead trusts; provider B is another issuer that knows Logstead's client id and secret too,
 * and A also knows a second client, "other-app", with Logstead's callback among its addresses.
 * Every attack below goes through the real provider over HTTP; each names what it proves.
 */

const CLIENT = { client_id: 'logstead', client_secret: 'logstead secret' };
const OTHER_APP = { client_id: 'other-app', client_secret: 'other-app secret' };

let A: TestOpenIdProvider;
let B: TestOpenIdProvider;
let server: TestServer;
let joiners: NewAccount;
let members: Members;
let callbackUrl: string;

const PEOPLE = {
  invited: { email: 'Invited.Admin@acme.test', email_verified: true, name: 'Invited Admin' },
  joiner: { email: 'new.person@joiners.test', email_verified: true },
  stranger: { email: 'someone@elsewhere.test', email_verified: true },
  unverified: { email: 'unverified@acme.test', email_verified: false },
  noEmail: { name: 'No E-mail' },
  grouped: { email: 'grouped@joiners.test', email_verified: true, groups: ['ops', 'a group Logstead does not have'] },
};

before(async () => {
  A = await startOpenIdProvider();
  B = await startOpenIdProvider();
  for (const provider of [A, B]) for (const [login, person] of Object.entries(PEOPLE)) provider.people.set(login, { ...person });
  server = await startTestServer({
    LOGSTEAD_OIDC_ISSUER: A.issuer,
    LOGSTEAD_OIDC_CLIENT_ID: CLIENT.client_id,
    LOGSTEAD_OIDC_CLIENT_SECRET: CLIENT.client_secret,
    LOGSTEAD_OIDC_DOMAINS: 'joiners.test',
    LOGSTEAD_OIDC_DEFAULT_ROLE: 'member',
    LOGSTEAD_OIDC_GROUPS_CLAIM: 'groups',
  });
  // People from joiners.test join the second organisation, not the first (the default).
  joiners = await server.createOrg('Joiners');
  await server.restart({ LOGSTEAD_OIDC_ACCOUNT: joiners.account });
  members = new Members(server.running.db);
  callbackUrl = `${server.url}/api/sso/callback`;
  const invite = await request(`${server.url}/v1/config/members`, {
    method: 'POST',
    headers: { servicekey: server.org.serviceKey, 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'invited.admin@acme.test', role: 'admin' }),
  });
  assert.equal(invite.status, 200, invite.text);
  await members.create(server.org.account, { email: 'unverified@acme.test', role: 'member', groups: [] });
});

after(async () => {
  await server?.close();
  await A?.close();
  await B?.close();
});

/** GET /api/sso/start in a fresh "browser": the provider's authorisation address, the attempt cookie in the jar. */
async function begin() {
  const jar = new CookieJar();
  const started = await jar.visit(`${server.url}/api/sso/start`);
  assert.equal(started.status, 302, await started.text());
  return { jar, authorization: new URL(started.headers.get('location')!), started };
}

/** The browser arrives at the callback (with its jar's cookies): the answer, and the session cookie if one was set. */
async function arrive(jar: CookieJar, callback: URL | string) {
  const answer = await jar.visit(String(callback));
  const session = jar.get(server.url, SESSION_COOKIE);
  return { status: answer.status, text: await answer.text(), setCookie: answer.headers.getSetCookie(), session };
}

async function signInAs(login: string) {
  const { jar, authorization } = await begin();
  return arrive(jar, await authorizeAt(authorization.href, login));
}

async function sessionOf(cookie: string | undefined) {
  return request(`${server.url}/api/session`, { headers: { cookie: `${SESSION_COOKIE}=${cookie}` } });
}

const sessionCount = async () => Number((await server.running.db.selectFrom('sessions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

/** A refusal: a 4xx page in words, no session cookie, and not one session more in the database. */
async function assertRefused(answer: Awaited<ReturnType<typeof arrive>>, status: number, words: RegExp, sessionsBefore: number) {
  assert.equal(answer.status, status, answer.text);
  assert.match(answer.text, /<h1>Single sign-on failed<\/h1>/);
  assert.match(answer.text, words);
  assert.match(answer.text, /Nobody was signed in|Ask an admin/);
  assert.equal(answer.session, undefined, 'no session cookie');
  assert.ok(!answer.setCookie.some((cookie) => cookie.startsWith(`${SESSION_COOKIE}=`)));
  assert.equal(await sessionCount(), sessionsBefore, 'no session was created');
}

const audit = (account: string) => new AuditTrail(server.running.db).list(account, { limit: 100 });

describe('starting a sign-in', () => {
  test('before the provider is up, start says so (502); once it is up, discovery is tried again and works', async () => {
    // A's listener answers 503 until it is configured, as a provider that is still starting would.
    const early = await request(`${server.url}/api/sso/start`, { redirect: 'manual' });
    assert.equal(early.status, 502);
    assert.match(early.text, /could not be reached/);
    A.configure([{ ...CLIENT, redirect_uris: [callbackUrl] }, { ...OTHER_APP, redirect_uris: [callbackUrl] }]);
    B.configure([{ ...CLIENT, redirect_uris: [callbackUrl] }]);
    const { started } = await begin();
    assert.equal(started.status, 302);
  });

  test('start sends the browser to the provider with PKCE (S256), state, nonce and the scopes, and keeps the attempt in the database', async () => {
    const { jar, authorization, started } = await begin();
    assert.equal(authorization.origin, A.issuer);
    const params = authorization.searchParams;
    assert.equal(params.get('response_type'), 'code');
    assert.equal(params.get('client_id'), CLIENT.client_id);
    assert.equal(params.get('redirect_uri'), callbackUrl);
    assert.equal(params.get('code_challenge_method'), 'S256');
    assert.match(params.get('code_challenge')!, /^[\w-]{43}$/);
    assert.match(params.get('state')!, /^[\w-]{20,}$/);
    assert.match(params.get('nonce')!, /^[\w-]{20,}$/);
    // The provider offers a "groups" scope, and LOGSTEAD_OIDC_GROUPS_CLAIM=groups, so it is asked for.
    assert.deepEqual(params.get('scope')!.split(' ').sort(), ['email', 'groups', 'openid', 'profile']);

    const cookie = started.headers.getSetCookie().find((header) => header.startsWith(`${ATTEMPT_COOKIE}=`))!;
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /SameSite=Lax/i);
    assert.match(cookie, /Path=\/api\/sso/i);
    // The database keeps the attempt under the hash of the cookie's id, never the id itself.
    const id = jar.get(server.url, ATTEMPT_COOKIE)!;
    const row = await server.running.db.selectFrom('sign_on_attempts').selectAll().where('id_hash', '=', hashKey(id)).executeTakeFirst();
    assert.ok(row, 'the attempt is stored under the hash of its cookie');
    assert.equal(row.state, params.get('state'));
    assert.equal(row.nonce, params.get('nonce'));
    const stored = await server.running.db.selectFrom('sign_on_attempts').select('id_hash').where('id_hash', '=', id).executeTakeFirst();
    assert.equal(stored, undefined);
  });
});

describe('who may sign in', () => {
  test('an invited member signs in with the role they were given, in the organisation that invited them', async () => {
    const answer = await signInAs('invited');
    assert.equal(answer.status, 200, answer.text);
    // A page that moves on to the viewer, not a redirect: a SameSite=Strict cookie set at the end
    // of a cross-site redirect chain would not go with a redirect's request (sso.e2e.test.ts).
    assert.match(answer.text, /<meta http-equiv="refresh" content="0;url=\/">/);
    assert.match(answer.text, /<a href="\/">/);
    const cookie = answer.setCookie.find((header) => header.startsWith(`${SESSION_COOKIE}=`))!;
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /SameSite=Strict/i);
    // The attempt cookie is cleared: it was spent.
    assert.ok(answer.setCookie.some((header) => header.startsWith(`${ATTEMPT_COOKIE}=;`)));

    const session = await sessionOf(answer.session);
    assert.equal(session.status, 200, session.text);
    assert.equal(session.json.email, 'invited.admin@acme.test');
    assert.equal(session.json.role, 'admin');
    assert.equal(session.json.account, server.org.account);
    const records = (await audit(server.org.account)).records;
    assert.ok(records.some((record) => record.action === 'session.sign-in' && record.id === 'invited.admin@acme.test' && JSON.stringify(record.after) === '{"method":"sso"}'));
    // The session reaches the API as the member.
    const members = await request(`${server.url}/v1/config/members`, { headers: { cookie: `${SESSION_COOKIE}=${answer.session}` } });
    assert.equal(members.status, 200);
  });

  test('a person from LOGSTEAD_OIDC_DOMAINS joins LOGSTEAD_OIDC_ACCOUNT with the default role on first sign-in, and is the same member the next time', async () => {
    const first = await signInAs('joiner');
    assert.equal(first.status, 200, first.text);
    const session = await sessionOf(first.session);
    assert.equal(session.json.email, 'new.person@joiners.test');
    assert.equal(session.json.role, 'member');
    assert.equal(session.json.account, joiners.account);
    assert.equal((await members.withEmail('new.person@joiners.test')).length, 1);
    assert.equal(await members.row(server.org.account, 'new.person@joiners.test'), undefined, 'not in the first organisation');
    assert.ok((await audit(joiners.account)).records.some((record) => record.action === 'member.create' && record.id === 'new.person@joiners.test'));

    const again = await signInAs('joiner');
    assert.equal(again.status, 200, again.text);
    assert.equal((await sessionOf(again.session)).json.account, joiners.account);
    assert.equal((await members.withEmail('new.person@joiners.test')).length, 1, 'no second member');
  });

  test('a person from another domain who was not invited is refused, and no member is created', async () => {
    const sessions = await sessionCount();
    const answer = await signInAs('stranger');
    await assertRefused(answer, 403, /someone@elsewhere\.test is not a member of any organisation here/, sessions);
    assert.deepEqual(await members.withEmail('someone@elsewhere.test'), []);
  });

  test('an e-mail the provider marks unverified is refused, and the failure is in the trail of the organisation it is a member of', async () => {
    const sessions = await sessionCount();
    const answer = await signInAs('unverified');
    await assertRefused(answer, 403, /unverified@acme\.test is not verified/, sessions);
    const failed = (await audit(server.org.account)).records.filter((record) => record.action === 'session.sign-in-failed' && record.id === 'unverified@acme.test');
    assert.equal(failed.length, 1);
    assert.deepEqual(failed[0].after, { method: 'sso' });
  });

  test('an account without an e-mail is refused', async () => {
    const sessions = await sessionCount();
    await assertRefused(await signInAs('noEmail'), 403, /did not give an e-mail address/, sessions);
  });

  test("the groups claim puts the member in the organisation's groups of those names, at every sign-in", async () => {
    const headers = { servicekey: joiners.serviceKey, 'content-type': 'application/json' };
    const create = async (name: string) => (await request(`${server.url}/v1/config/groups`, { method: 'POST', headers, body: JSON.stringify({ name, access_scopes: `app:${name}` }) })).json;
    const ops = await create('ops');
    const dev = await create('dev');
    assert.ok(ops.id && dev.id);
    const groupsOf = async () => (await members.get(joiners.account, 'grouped@joiners.test'))?.groups;

    assert.equal((await signInAs('grouped')).status, 200);
    assert.deepEqual(await groupsOf(), [ops.id], 'in "ops"; the name Logstead does not have is ignored');
    const session = await sessionOf((await signInAs('grouped')).session);
    assert.equal(session.json.scoped, true, 'the session is scoped by the group');

    // Moved from ops to dev at the provider: the next sign-in follows.
    A.people.get('grouped')!.groups = ['dev'];
    assert.equal((await signInAs('grouped')).status, 200);
    assert.deepEqual(await groupsOf(), [dev.id]);
    assert.ok((await audit(joiners.account)).records.some((record) => record.action === 'member.update' && record.id === 'grouped@joiners.test'));

    // No claim at all (the provider left it out) changes nothing: emptying the groups would widen the member's view.
    delete A.people.get('grouped')!.groups;
    assert.equal((await signInAs('grouped')).status, 200);
    assert.deepEqual(await groupsOf(), [dev.id]);

    // An empty list is a claim: in no group.
    A.people.get('grouped')!.groups = [];
    assert.equal((await signInAs('grouped')).status, 200);
    assert.deepEqual(await groupsOf(), []);
  });
});

describe('an answer that is not for this sign-in never yields a session', () => {
  test('a tampered state is refused, and it spends the attempt: the genuine answer cannot be used after it', async () => {
    const sessions = await sessionCount();
    const { jar, authorization } = await begin();
    const attempt = jar.get(server.url, ATTEMPT_COOKIE)!;
    const genuine = await authorizeAt(authorization.href, 'invited');
    const tampered = new URL(genuine);
    tampered.searchParams.set('state', `${genuine.searchParams.get('state')}x`);
    await assertRefused(await arrive(jar, tampered), 400, /state mismatch/, sessions);
    // The browser forgot the attempt cookie, and the attempt itself is gone from the database.
    assert.equal(jar.get(server.url, ATTEMPT_COOKIE), undefined);
    assert.equal(await server.running.db.selectFrom('sign_on_attempts').select('id_hash').where('id_hash', '=', hashKey(attempt)).executeTakeFirst(), undefined);
    const resent = await fetch(genuine, { redirect: 'manual', headers: { cookie: `${ATTEMPT_COOKIE}=${attempt}` } });
    assert.equal(resent.status, 400);
    assert.match(await resent.text(), /it was already used/);
    assert.equal(await sessionCount(), sessions);
  });

  test("a callback in a browser that did not start the sign-in (someone else's link) is refused", async () => {
    const sessions = await sessionCount();
    const { authorization } = await begin();
    const answer = await authorizeAt(authorization.href, 'invited');
    await assertRefused(await arrive(new CookieJar(), answer), 400, /not started in this browser/, sessions);
  });

  test('a successful answer works once: replayed with the same attempt cookie, it is refused', async () => {
    const { jar, authorization } = await begin();
    const attempt = jar.get(server.url, ATTEMPT_COOKIE)!;
    const answer = await authorizeAt(authorization.href, 'invited');
    assert.equal((await arrive(jar, answer)).status, 200);
    const sessions = await sessionCount();
    const replayed = await fetch(answer, { redirect: 'manual', headers: { cookie: `${ATTEMPT_COOKIE}=${attempt}` } });
    assert.equal(replayed.status, 400);
    assert.match(await replayed.text(), /already used/);
    assert.equal(await sessionCount(), sessions);
  });

  test('an attempt older than 10 minutes is refused', async () => {
    const sessions = await sessionCount();
    const { jar, authorization } = await begin();
    const answer = await authorizeAt(authorization.href, 'invited');
    const id = jar.get(server.url, ATTEMPT_COOKIE)!;
    await server.running.db.updateTable('sign_on_attempts').set({ expires_at: Date.now() - 1 }).where('id_hash', '=', hashKey(id)).execute();
    await assertRefused(await arrive(jar, answer), 400, /older than 10 minutes/, sessions);
    assert.equal(await server.running.db.selectFrom('sign_on_attempts').select('id_hash').where('id_hash', '=', hashKey(id)).executeTakeFirst(), undefined, 'deleted');
  });

  test('an ID token with another nonce (the authorisation request was altered on its way to the provider) is refused', async () => {
    // The provider puts whatever nonce the request carried into the ID token; Logstead expects its own.
    const sessions = await sessionCount();
    const { jar, authorization } = await begin();
    authorization.searchParams.set('nonce', 'a-nonce-this-sign-in-never-made');
    await assertRefused(await arrive(jar, await authorizeAt(authorization.href, 'invited')), 401, /nonce mismatch/, sessions);
  });

  test('the provider refusing the person (error in the answer) is shown in words', async () => {
    // prompt=none with nobody logged in at the provider: it answers login_required to the callback.
    const sessions = await sessionCount();
    const { jar, authorization } = await begin();
    authorization.searchParams.set('prompt', 'none');
    const answer = await fetch(authorization, { redirect: 'manual' });
    const back = new URL(answer.headers.get('location')!);
    assert.equal(back.searchParams.get('error'), 'login_required');
    await assertRefused(await arrive(jar, back), 401, /did not sign you in \(login_required/, sessions);
  });
});

describe('another issuer or another audience never yields a session', () => {
  test("provider B's answer (same client id and secret, another issuer) is refused by its iss parameter", async () => {
    // Logstead's own request (state, nonce, PKCE challenge) taken to B, as in a mix-up attack.
    const sessions = await sessionCount();
    const { jar, authorization } = await begin();
    const atB = new URL(authorization.pathname + authorization.search, B.issuer);
    const answer = await authorizeAt(atB.href, 'invited');
    assert.equal(answer.searchParams.get('iss'), B.issuer, 'B did sign the person in and sent a code');
    await assertRefused(await arrive(jar, answer), 401, /issuer mismatch/, sessions);
  });

  test("B's code with a forged iss=A goes to A, which does not know it", async () => {
    const sessions = await sessionCount();
    const { jar, authorization } = await begin();
    const answer = await authorizeAt(new URL(authorization.pathname + authorization.search, B.issuer).href, 'invited');
    answer.searchParams.set('iss', A.issuer);
    await assertRefused(await arrive(jar, answer), 401, /refused this sign-in's code \(invalid_grant/, sessions);
  });

  test("an ID token issued by B reaching Logstead from A's token endpoint is refused by the ID token's issuer check", async () => {
    // A's token endpoint is diverted to B (an impersonated or compromised endpoint): B answers with
    // an ID token that is right in every respect (audience, nonce, PKCE) but its issuer.
    const diversion = async (to: TestOpenIdProvider, login: string) => {
      const { jar, authorization } = await begin();
      const answer = await authorizeAt(new URL(authorization.pathname + authorization.search, to.issuer).href, login);
      answer.searchParams.set('iss', A.issuer);
      A.divertTokenRequests({ tokenUrl: `${to.issuer}/token`, clientId: CLIENT.client_id, clientSecret: CLIENT.client_secret });
      try {
        return await arrive(jar, answer);
      } finally {
        A.divertTokenRequests(undefined);
      }
    };
    // The control: diverted to A itself, the same path signs in. So the refusal below is the issuer's.
    const control = await diversion(A, 'invited');
    assert.equal(control.status, 200, control.text);
    const sessions = await sessionCount();
    await assertRefused(await diversion(B, 'invited'), 401, /issuer mismatch/, sessions);
  });

  test('a code issued to another client of the same provider is refused by the provider', async () => {
    const sessions = await sessionCount();
    const { jar, authorization } = await begin();
    authorization.searchParams.set('client_id', OTHER_APP.client_id);
    const answer = await authorizeAt(authorization.href, 'invited');
    await assertRefused(await arrive(jar, answer), 401, /refused this sign-in's code \(invalid_grant/, sessions);
  });

  test("an ID token for another client reaching Logstead from A's token endpoint is refused by the audience check", async () => {
    // The code was issued to other-app, and the diverted token request redeems it as other-app:
    // A answers with a genuine ID token of the right issuer and nonce, for the wrong audience.
    const sessions = await sessionCount();
    const { jar, authorization } = await begin();
    authorization.searchParams.set('client_id', OTHER_APP.client_id);
    const answer = await authorizeAt(authorization.href, 'invited');
    A.divertTokenRequests({ tokenUrl: `${A.issuer}/token`, clientId: OTHER_APP.client_id, clientSecret: OTHER_APP.client_secret });
    try {
      await assertRefused(await arrive(jar, answer), 401, /audience mismatch/, sessions);
    } finally {
      A.divertTokenRequests(undefined);
    }
  });
});

describe('without single sign-on configured', () => {
  test('start and callback answer 404 with a page that says so', async () => {
    // The routes alone, on a bare app: a second Logstead cannot run in this process (one chdb per process).
    const app = Fastify();
    await app.register(fastifyCookie);
    const unused = undefined as never;
    await app.register(ssoRoutes, { db: unused, accounts: unused, sessions: unused, members: unused, groups: unused, auth: unused, audit: unused, scopes: unused, oidc: undefined, publicUrl: () => 'http://127.0.0.1', secureCookies: () => false, features: () => ({}), organisationFacts: unused });
    for (const url of ['/api/sso/start', '/api/sso/callback?code=x&state=y']) {
      const answer = await app.inject({ method: 'GET', url });
      assert.equal(answer.statusCode, 404, url);
      assert.match(answer.body, /Single sign-on is not configured on this server/);
    }
    await app.close();
  });
});

test('without LOGSTEAD_OIDC_ACCOUNT, people from the listed domains join the first organisation', async () => {
  const oidc = { issuer: A.issuer, clientId: 'c', clientSecret: 's', domains: ['first.test'], defaultRole: 'readonly' as const, account: undefined, groupsClaim: undefined };
  const deps = { accounts: server.running.accounts, members, groups: new Groups(server.running.db), audit: new AuditTrail(server.running.db), oidc, scopes: { member: async () => {} } as never };
  const admission = await admit(deps, { email: 'someone@first.test', emailVerified: true, groups: undefined }, '127.0.0.1');
  assert.ok('admitted' in admission);
  assert.equal(admission.admitted.account, server.org.account, 'the first organisation, not Joiners');
  assert.equal(admission.admitted.role, 'readonly');
});
