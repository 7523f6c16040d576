/**
 * Setters in the viewer, end to end in Chromium (issue 39): a view whose alert was set by a member
 * who has since been removed shows a held bell and says why in its alert editor; a readonly member
 * sees the alert's secrets masked; after an admin takes the alert over, the editor names them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserMissing } from '../testing/browser.js';
import { type MemberSession, type TestServer, request, startTestServer } from '../testing/harness.js';
import { ingestLines, launchChromium, reportingContext, signInWithPassword } from '../testing/viewer-e2e.js';

let server: TestServer;
let browser: Browser;
let admin: MemberSession;
let viewid: string;
let alertid: string;
const cspViolations: string[] = [];
const pageErrors: string[] = [];

async function signedIn(who: MemberSession): Promise<Page> {
  const context = await reportingContext(browser, cspViolations, { viewport: { width: 1400, height: 900 }, locale: 'en-US' });
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(`${error.message}\n${error.stack}`));
  await signInWithPassword(server, page, who.email, who.password);
  await page.locator('[data-testid=view-link]', { hasText: 'Payments' }).waitFor();
  return page;
}

describe('setters in the viewer (Chromium)', { skip: browserMissing() }, () => {
  before(async () => {
    server = await startTestServer({ LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS: 'true' });
    await ingestLines(server, [{ line: 'payment captured', app: 'billing', level: 'info', timestamp: Date.now() - 60_000 }]);
    const leaving = await server.signInAs('leo@example.com', 'member');
    const channel = { integration: 'webhook', url: 'http://127.0.0.1:9/hook', headers: { Authorization: 'Bearer s3cret' }, triggerlimit: 1, triggerinterval: '1m', immediate: true, terminal: false };
    const created = await request(`${server.url}/v1/config/view`, { method: 'POST', headers: { ...leaving.headers(true), 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Payments', apps: ['billing'], channels: [channel] }) });
    assert.equal(created.status, 200, created.text);
    viewid = created.json.viewid;
    alertid = created.json.channels[0].alertid;
    const removed = await request(`${server.url}/v1/config/members/leo@example.com`, { method: 'DELETE', headers: { servicekey: server.org.serviceKey } });
    assert.equal(removed.status, 200, removed.text);
    admin = await server.signInAs('ada@example.com', 'admin');
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('a removed member\'s alert: a held bell, and the editor says why and who set it', async () => {
    const page = await signedIn(admin);
    const bell = page.locator('[data-testid=view-link]', { hasText: 'Payments' }).locator('svg.bell');
    assert.equal(await bell.getAttribute('aria-label'), 'has a held alert');
    assert.match((await bell.locator('title').textContent()) ?? '', /held: its setter was removed/);
    await page.getByRole('button', { name: 'Edit Payments' }).click();
    const note = page.locator('[data-testid=channel-setter]');
    assert.match(await note.innerText(), /^Set by a member who was removed\. Held: /);
    // The admin sees the secret in clear: they may change it.
    assert.equal(await page.locator('[data-testid=channel] input[value="Bearer s3cret"]').count(), 1);
    await page.context().close();
  });

  test('after an admin takes it over, the bell rings normally and the editor names them', async () => {
    const taken = await request(`${server.url}/v1/config/view/${viewid}/alerts/${alertid}/takeover`, { method: 'POST', headers: admin.headers(true) });
    assert.equal(taken.status, 200, taken.text);
    const page = await signedIn(admin);
    const bell = page.locator('[data-testid=view-link]', { hasText: 'Payments' }).locator('svg.bell');
    assert.equal(await bell.getAttribute('aria-label'), 'has alerts');
    await page.getByRole('button', { name: 'Edit Payments' }).click();
    assert.equal(await page.locator('[data-testid=channel-setter]').innerText(), `Set by ${admin.email}`);
    await page.context().close();
  });

  test('a readonly member gets the secret masked: it is nowhere in what the viewer loaded', async () => {
    const reader = await server.signInAs('rita@example.com', 'readonly');
    const page = await signedIn(reader);
    const views = await page.evaluate(async () => (await fetch('/v1/config/view')).text());
    assert.ok(views.includes('********') && !views.includes('s3cret'), views);
    assert.ok(!(await page.content()).includes('s3cret'));
    await page.context().close();
  });

  test('nothing was blocked by the Content-Security-Policy, and the pages threw no errors', () => {
    assert.deepEqual(cspViolations, []);
    assert.deepEqual(pageErrors, []);
  });
});
