/**
 * Single sign-on end to end in Chromium: the viewer's sign-in page, a real OpenID provider
 * (oidc-provider) on another site (127.0.0.2, so the browser applies its cross-site rules to the
 * redirects and cookies as with a real provider), its login form, and back into the viewer signed
 * in. Attacks on the protocol itself (another issuer, another audience, replays) are walked over
 * HTTP in sso.test.ts; here a person's browser is tampered with as an attacker on the way could.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page, Response } from 'playwright-core';
import type { NewAccount } from '../../accounts/accounts.js';
import { browserMissing } from '../../testing/browser.js';
import { type TestServer, request, startTestServer } from '../../testing/harness.js';
import { CookieJar, type TestOpenIdProvider, authorizeAt, startOpenIdProvider } from '../../testing/openid-provider.js';
import { launchChromium, reportingContext } from '../../testing/viewer-e2e.js';
import { Members } from '../members.js';

let provider: TestOpenIdProvider;
let server: TestServer;
let joiners: NewAccount;
let browser: Browser;
const cspViolations: string[] = [];
const pageErrors: string[] = [];

/** A fresh browser profile on the viewer's sign-in page: nobody is signed in, at Logstead or at the provider. */
async function signInPage(): Promise<Page> {
  const context = await reportingContext(browser, cspViolations);
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(`${error.message}\n${error.stack}`));
  await page.goto(server.url);
  await page.waitForSelector('[data-testid=email]');
  return page;
}

/**
 * From the sign-in page to the provider's login form and through it as `login`, by the page's
 * "Sign in with SSO". Resolves with Logstead's answer at the callback.
 */
async function throughProvider(page: Page, login: string): Promise<Response> {
  await startThroughPage(page);
  return logInAtProvider(page, login);
}

async function startThroughPage(page: Page) {
  // The sign-in page offers it because GET /api/sign-in says single sign-on is configured.
  await page.getByRole('link', { name: /sign in with sso/i }).click();
}

/** At the provider's login form: logs in as `login`; resolves with Logstead's answer at the callback. */
async function logInAtProvider(page: Page, login: string): Promise<Response> {
  await page.waitForURL((url) => url.origin === provider.issuer && url.pathname.startsWith('/interaction/'));
  await page.fill('input[name=login]', login);
  await page.fill('input[name=password]', 'any password');
  const callback = page.waitForResponse((response) => response.url().startsWith(`${server.url}/api/sso/callback`));
  await page.click('button[type=submit]');
  return callback;
}

/** Back at the viewer: the sign-in page, and no session. Closes the browser profile. */
async function expectSignedOut(page: Page) {
  await page.goto(server.url);
  await page.waitForSelector('[data-testid=email]');
  assert.equal((await sessionFromPage(page)).status, 401);
  await page.context().close();
}

/** GET /api/session from the page, as the viewer itself asks. */
const sessionFromPage = (page: Page) => page.evaluate(async () => {
  const answer = await fetch('/api/session');
  return { status: answer.status, body: (await answer.json()) as { email: string; role: string; account: string; scoped: boolean } };
});

describe('single sign-on in Chromium', { skip: browserMissing() }, () => {
  before(async () => {
    provider = await startOpenIdProvider();
    provider.people.set('invited', { email: 'invited.reader@acme.test', email_verified: true, name: 'Invited Reader' });
    provider.people.set('joiner', { email: 'first.day@joiners.test', email_verified: true, groups: ['ops', 'all-staff'] });
    provider.people.set('stranger', { email: 'stranger@elsewhere.test', email_verified: true });
    server = await startTestServer({
      LOGSTEAD_OIDC_ISSUER: provider.issuer,
      LOGSTEAD_OIDC_CLIENT_ID: 'logstead',
      LOGSTEAD_OIDC_CLIENT_SECRET: 'logstead secret',
      LOGSTEAD_OIDC_DOMAINS: 'joiners.test',
      LOGSTEAD_OIDC_DEFAULT_ROLE: 'member',
      LOGSTEAD_OIDC_GROUPS_CLAIM: 'groups',
    });
    joiners = await server.createOrg('Joiners');
    await server.restart({ LOGSTEAD_OIDC_ACCOUNT: joiners.account });
    provider.configure([{ client_id: 'logstead', client_secret: 'logstead secret', redirect_uris: [`${server.url}/api/sso/callback`] }]);
    const invite = await request(`${server.url}/v1/config/members`, {
      method: 'POST',
      headers: { servicekey: server.org.serviceKey, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'invited.reader@acme.test', role: 'readonly' }),
    });
    assert.equal(invite.status, 200, invite.text);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await provider?.close();
    // Only Logstead's pages are held to its CSP; the provider's dev pages are not ours.
    assert.deepEqual(cspViolations.filter((violation) => violation.includes(server.url)), [], 'no CSP violations on Logstead pages');
    assert.deepEqual(pageErrors, [], 'no uncaught errors in the page');
  });

  test('an invited member signs in at the provider and lands in the viewer, signed in with the role they were given', async () => {
    const page = await signInPage();
    const landing = page.waitForRequest((sent) => sent.url() === `${server.url}/` && sent.isNavigationRequest());
    const callback = await throughProvider(page, 'invited');
    assert.equal(callback.status(), 200);
    // The callback's page moves on to the viewer by itself, and that request carries the new
    // SameSite=Strict session cookie: a redirect from the callback, at the end of a chain that
    // began at the provider's site, would reach the viewer without it.
    assert.match((await (await landing).allHeaders()).cookie ?? '', /logstead_session=/);
    await page.waitForURL(`${server.url}/`);
    await page.waitForSelector('[data-testid=query]');
    assert.equal(await page.locator('[data-testid=email]').count(), 0, 'the sign-in page is gone');
    const session = await sessionFromPage(page);
    assert.equal(session.status, 200);
    assert.equal(session.body.email, 'invited.reader@acme.test');
    assert.equal(session.body.role, 'readonly');
    assert.equal(session.body.account, server.org.account);
    // The viewer session is the real thing: a reload keeps it.
    await page.reload();
    await page.waitForSelector('[data-testid=query]');
    await page.context().close();
  });

  test('a person from the listed domain joins the configured organisation with the default role and the groups of their claim', async () => {
    const ops = await request(`${server.url}/v1/config/groups`, {
      method: 'POST',
      headers: { servicekey: joiners.serviceKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ops', access_scopes: 'app:ops' }),
    });
    assert.equal(ops.status, 200, ops.text);
    const page = await signInPage();
    assert.equal((await throughProvider(page, 'joiner')).status(), 200);
    await page.waitForURL(`${server.url}/`);
    await page.waitForSelector('[data-testid=query]');
    const session = await sessionFromPage(page);
    assert.equal(session.body.email, 'first.day@joiners.test');
    assert.equal(session.body.role, 'member');
    assert.equal(session.body.account, joiners.account);
    assert.equal(session.body.scoped, true, "the ops group's scope holds");
    assert.deepEqual((await new Members(server.running.db).get(joiners.account, 'first.day@joiners.test'))?.groups, [ops.json.id]);
    await page.context().close();
  });

  test('a person from another domain who was not invited sees why, and is not signed in', async () => {
    const page = await signInPage();
    const callback = await throughProvider(page, 'stranger');
    assert.equal(callback.status(), 403);
    assert.match(await page.locator('body').innerText(), /stranger@elsewhere\.test is not a member of any organisation here/);
    await expectSignedOut(page);
  });

  test("another person's answer from the provider, opened in this browser, never yields a session (state)", async () => {
    // Login CSRF: an attacker walks a sign-in of their own up to the provider's answer and has the
    // victim's browser open that callback address while the victim's own sign-in is under way.
    const attacker = new CookieJar();
    const started = await attacker.visit(`${server.url}/api/sso/start`);
    const attackersCallback = await authorizeAt(started.headers.get('location')!, 'invited');

    const page = await signInPage();
    await startThroughPage(page);
    await page.waitForURL((url) => url.origin === provider.issuer);
    const callback = await page.goto(attackersCallback.href);
    assert.equal(callback?.status(), 400);
    assert.match(await page.locator('body').innerText(), /state mismatch/);
    await expectSignedOut(page);
  });

  test('a nonce changed on its way to the provider never yields a session', async () => {
    const page = await signInPage();
    // The browser's own start (its attempt cookie kept in the browser), whose address to the
    // provider is then altered, as a man in the middle of that redirect could.
    const started = await page.request.get(`${server.url}/api/sso/start`, { maxRedirects: 0 });
    assert.equal(started.status(), 302);
    const authorization = new URL(started.headers().location);
    authorization.searchParams.set('nonce', 'a-nonce-this-sign-in-never-made');
    await page.goto(authorization.href);
    const callback = await logInAtProvider(page, 'invited');
    assert.equal(callback.status(), 401);
    assert.match(await page.locator('body').innerText(), /nonce mismatch/);
    await expectSignedOut(page);
  });
});
