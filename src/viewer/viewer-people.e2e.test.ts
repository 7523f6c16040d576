/**
 * People in the viewer, end to end in Chromium against a real server and a real SMTP receiver:
 * password sign-in, who and which role in the top bar, no edit controls for readonly, an
 * invitation from the Members page to the invited person signed in (and the link refused the
 * second time), the group scope editor's count and errors, the audit trail of all of it, and a
 * group's exact lists with what they let through, and the confirmation before access widens.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Dialog, Page } from 'playwright-core';
import { browserMissing } from '../testing/browser.js';
import { type MemberSession, type TestServer, eventually, request, startTestServer } from '../testing/harness.js';
import { startSmtpReceiver } from '../testing/receivers.js';
import { ingestLines, launchChromium, openSettings, reportingContext, signInWithPassword } from '../testing/viewer-e2e.js';

let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
let browser: Browser;
let admin: MemberSession;
let reader: MemberSession;
/** The admin's page, kept open from test to test as a person would. */
let page: Page;
const cspViolations: string[] = [];
const pageErrors: string[] = [];
const consoleErrors: string[] = [];

const BILLING_LINES = 12;
const WEB_LINES = 20;
const INVITED = 'neo@example.com';

/**
 * A failed request is logged by Chromium as a console error. These tests provoke four on
 * purpose (a wrong password's 401, a bad scope's 400, a spent link's 410, a widening's 409);
 * any other is a fault.
 */
const PROVOKED = /^Failed to load resource: the server responded with a status of (400|401|409|410)\b/;

async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await reportingContext(browser, cspViolations, { viewport: { width: 1400, height: 900 }, locale: 'en-US' });
  const opened = await context.newPage();
  opened.on('pageerror', (error) => pageErrors.push(`${error.message}\n${error.stack}`));
  opened.on('console', (message) => {
    if (message.type() === 'error' && !PROVOKED.test(message.text())) consoleErrors.push(`${message.text()} (${message.location().url})`);
  });
  return { context, page: opened };
}

const withKey = (path: string, body: unknown) =>
  request(`${server.url}${path}`, { method: 'POST', headers: { servicekey: server.org.serviceKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });

const memberRow = (email: string) => page.locator(`[data-testid=member-row][data-email="${email}"]`);

describe('people in the viewer (Chromium)', { skip: browserMissing() }, () => {
  before(async () => {
    smtp = await startSmtpReceiver();
    server = await startTestServer({ LOGSTEAD_SMTP_URL: smtp.url });
    const now = Date.now();
    await ingestLines(server, Array.from({ length: BILLING_LINES }, (_, i) => ({ line: `payment ${i} captured`, app: 'billing', level: i % 3 === 0 ? 'error' : 'info', timestamp: now - 600_000 + i * 1000 })));
    await ingestLines(server, Array.from({ length: WEB_LINES }, (_, i) => ({ line: `GET /orders/${i} 200`, app: 'web', level: 'info', timestamp: now - 500_000 + i * 1000 })));
    const alert = { integration: 'email', emails: ['oncall@example.com'], operator: 'presence', triggerlimit: 5, triggerinterval: '15m', immediate: false, terminal: true };
    const view = await withKey('/v1/config/view', { name: 'Billing errors', query: 'app:billing level:error', channels: [alert] });
    assert.equal(view.status, 200, view.text);
    admin = await server.signInAs('ada@example.com', 'admin');
    reader = await server.signInAs('rita@example.com', 'readonly');
    browser = await launchChromium();
    page = (await newPage()).page;
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await smtp?.close();
  });

  test('signs in with e-mail and password on the sign-in page (a wrong one is named), and the top bar shows who and their role', async () => {
    await signInWithPassword(server, page, admin.email, 'not the password');
    assert.equal(await page.locator('[data-testid=sign-in-error]').innerText(), 'Wrong e-mail or password.');
    await page.fill('[data-testid=password]', admin.password);
    await page.click('button[type=submit]');
    await page.waitForSelector('[data-testid=line]');
    assert.equal(await page.locator('[data-testid=signed-in-as]').innerText(), 'ada@example.com');
    assert.equal(await page.locator('[data-testid=role]').innerText(), 'admin');
    // An admin's settings offer the members and the audit trail.
    await page.click('[data-testid=nav-settings]');
    assert.equal(await page.getByRole('link', { name: 'Members and groups' }).count(), 1);
    assert.equal(await page.getByRole('link', { name: 'Audit' }).count(), 1);
  });

  test('"Forgot your password?" sends a reset link and says so', async () => {
    const { context, page: other } = await newPage();
    await other.goto(server.url);
    await other.click('[data-testid=forgot-password]');
    await other.fill('[data-testid=reset-email]', reader.email);
    await other.getByRole('button', { name: 'Send me a link' }).click();
    assert.match(await other.locator('[data-testid=reset-sent]').innerText(), /rita@example\.com is a member, a link to choose a new password is on its way/);
    const mail = await eventually(() => smtp.messages.find((message) => JSON.stringify(message.to).includes(reader.email)), 10_000, 'the reset e-mail');
    assert.match(mail.subject ?? '', /Reset your Logstead password/);
    await context.close();
  });

  test('a readonly member sees the views but no control to change them, nor the admin pages', async () => {
    const { context, page: theirs } = await newPage();
    await signInWithPassword(server, theirs, reader.email, reader.password);
    await theirs.waitForSelector('[data-testid=line]');
    assert.equal(await theirs.locator('[data-testid=role]').innerText(), 'readonly');
    assert.equal(await theirs.locator('[data-testid=view-link]', { hasText: 'Billing errors' }).count(), 1, 'views are seen');
    // Alerts are seen too, in words, though the editor that changes them is not offered.
    const bell = theirs.locator('[data-testid=view-link]', { hasText: 'Billing errors' }).locator('svg.bell title');
    assert.equal(await bell.textContent(), '1 alert\n• e-mail to oncall@example.com when 5 or more lines come within 15 minutes');
    assert.equal(await theirs.locator('[data-testid=save-view]').count(), 0, 'no Save search');
    assert.equal(await theirs.getByRole('button', { name: /^(Edit|Delete) Billing errors$/ }).count(), 0, 'no edit or delete');
    await theirs.click('[data-testid=nav-settings]');
    await theirs.waitForSelector('[data-testid=settings-usage]');
    assert.equal(await theirs.locator('[data-testid=settings-members], [data-testid=settings-audit], [data-testid=settings-keys], [data-testid=settings-archive]').count(), 0, 'no Members, Keys, Archive or Audit');
    await context.close();
  });

  test('an admin invites a member; the e-mail carries one link, which signs the invited person in once', async () => {
    await openSettings(page, 'members');
    await page.locator('[data-testid=people-page]').waitFor();
    assert.equal(await memberRow(admin.email).locator('[data-testid=member-role]').inputValue(), 'admin');
    await page.fill('[data-testid=invite-email]', INVITED);
    await page.selectOption('[data-testid=invite-role]', 'member');
    await page.click('[data-testid=invite]');
    assert.equal(await page.locator('[data-testid=invitation]').innerText(), `Invited ${INVITED}: the invitation e-mail was sent.`);
    await memberRow(INVITED).waitFor();
    assert.match(await memberRow(INVITED).innerText(), /invited, no password yet/);

    const mail = await eventually(() => smtp.messages.find((message) => JSON.stringify(message.to).includes(INVITED)), 10_000, 'the invitation e-mail');
    const links = mail.text?.match(/https?:\/\/\S+/g) ?? [];
    assert.equal(links.length, 1, mail.text);
    const link = links[0];
    assert.equal(new URL(link).pathname, '/password');
    assert.equal((mail.html || '').match(/href="/g)?.length, 1, 'the HTML part has the one link too');

    const { context, page: invited } = await newPage();
    await invited.goto(link);
    assert.match(await invited.locator('[data-testid=password-purpose]').innerText(), /You are invited to/);
    await invited.fill('[data-testid=new-password]', 'correct horse battery');
    await invited.fill('[data-testid=repeat-password]', 'correct horse battery!');
    await invited.getByRole('button', { name: 'Set password and sign in' }).click();
    assert.match(await invited.locator('[data-testid=password-error]').innerText(), /The two passwords differ/);
    await invited.fill('[data-testid=repeat-password]', 'correct horse battery');
    await invited.getByRole('button', { name: 'Set password and sign in' }).click();
    await invited.waitForSelector('[data-testid=line]');
    assert.equal(await invited.locator('[data-testid=signed-in-as]').innerText(), INVITED);
    assert.equal(await invited.locator('[data-testid=role]').innerText(), 'member');
    assert.equal(new URL(invited.url()).search, '', 'the spent token left the address bar');

    const again = await invited.goto(link);
    assert.equal(again?.status(), 410);
    assert.match(await invited.locator('body').innerText(), /already been used/);
    await context.close();
  });

  test("the group scope editor counts the last day's lines a scope lets through, and shows where a bad scope is wrong", async () => {
    await page.click('[data-testid=new-group]');
    await page.fill('[data-testid=group-name]', 'Billing');
    const count = page.locator('[data-testid=scope-count]');
    await eventually(async () => ((await count.getAttribute('data-state')) === 'counted' ? true : undefined), 10_000, 'the count without a scope');
    assert.match(await count.innerText(), new RegExp(`limits nothing: members see all ${BILLING_LINES + WEB_LINES} lines`));

    await page.fill('[data-testid=group-scope]', 'app:billing');
    await eventually(async () => ((await count.getAttribute('data-matched')) === String(BILLING_LINES) ? true : undefined), 10_000, 'the billing lines counted');
    assert.match(await count.innerText(), new RegExp(`Lets through ${BILLING_LINES} of the ${BILLING_LINES + WEB_LINES} lines of the last day`));

    // The count refuses the bad scope too; the save's refusal is told apart by the server's words for the field.
    await page.fill('[data-testid=group-scope]', 'app:billing (level:error');
    await page.click('[data-testid=save-group]');
    const problem = page.locator('[data-testid=scope-error]');
    await eventually(async () => ((await problem.count()) && /is not a valid search/.test(await problem.innerText()) ? true : undefined), 10_000, "the server's refusal");
    assert.match(await problem.innerText(), /"access_scopes" is not a valid search: Invalid query at position \d+/);
    assert.match(await problem.locator('code').innerText(), /^app:billing \(level:error\n {24}\^$/, 'a caret under the end, where ")" was expected');

    await page.fill('[data-testid=group-scope]', 'app:billing');
    await page.click('[data-testid=save-group]');
    await page.locator('[data-testid=group-row]', { hasText: 'Billing' }).waitFor();
    assert.match(await page.locator('[data-testid=group-row]').innerText(), /app:billing/);

    // The invited member joins the group, then becomes readonly.
    await memberRow(INVITED).locator('.group-checks summary').click();
    await memberRow(INVITED).getByRole('checkbox', { name: 'Billing' }).check();
    await eventually(async () => ((await memberRow(INVITED).locator('.group-checks summary').innerText()) === 'Billing' ? true : undefined), 5000, 'the group on the row');
    await memberRow(INVITED).locator('.group-checks summary').click();
    await memberRow(INVITED).locator('[data-testid=member-role]').selectOption('readonly');
    await eventually(async () => ((await memberRow(INVITED).locator('[data-testid=member-role]').inputValue()) === 'readonly' ? true : undefined), 5000, 'the new role');
    assert.match(await memberRow(INVITED).innerText(), /active/);
  });

  test('the audit page lists those changes, newest first, filtered and a page at a time', async () => {
    // Enough later changes by a key to push the admin's onto a second page.
    for (let i = 0; i < 50; i++) assert.equal((await withKey('/v1/config/categories/views', { name: `Team ${i}` })).status, 200);
    await openSettings(page, 'audit');
    const records = page.locator('[data-testid=audit-record]');
    await records.first().waitFor();
    assert.equal(await records.count(), 50);
    assert.equal(await records.first().getAttribute('data-action'), 'category.create');
    await page.click('[data-testid=audit-more]');
    await eventually(async () => ((await records.count()) > 50 ? true : undefined), 5000, 'the next page');
    const actions = await records.evaluateAll((rows) => rows.map((row) => row.getAttribute('data-action')));
    const order = ['member.update', 'group.create', 'member.set-password', 'member.create', 'session.sign-in'].map((action) => actions.indexOf(action));
    assert.ok(order.every((index) => index >= 50), `${order} (after the categories)`);
    assert.deepEqual([...order].sort((a, b) => a - b), order, `newest first: ${actions.slice(50).join(', ')}`);

    const roleChange = records.nth(order[0]);
    assert.match(await roleChange.innerText(), /ada@example\.com/);
    assert.match(await roleChange.innerText(), /updated member/);
    assert.match(await roleChange.innerText(), /role\s+member → readonly/);
    assert.match(await roleChange.innerText(), /127\.0\.0\.1/, 'from which address');

    await page.fill('[data-testid=audit-resource]', 'group');
    await page.getByRole('button', { name: 'Filter' }).click();
    await eventually(async () => ((await records.count()) === 1 ? true : undefined), 5000, 'only the group');
    assert.equal(await records.first().getAttribute('data-action'), 'group.create');
    assert.match(await records.first().innerText(), /access_scopes\s+app:billing/);

    await page.fill('[data-testid=audit-resource]', '');
    await page.fill('[data-testid=audit-actor]', INVITED);
    await page.getByRole('button', { name: 'Filter' }).click();
    await eventually(async () => ((await records.first().getAttribute('data-action')) === 'member.set-password' ? true : undefined), 5000, "only the invited person's");
    assert.equal(await records.count(), 1);
    assert.equal(await page.locator('[data-testid=audit-more]').count(), 0, 'no further page');
  });

  test("a group's exact lists show what it lets through once saved; a change that lets a member see every line asks first, naming them", async () => {
    await openSettings(page, 'members');
    await page.locator('[data-testid=people-page]').waitFor();

    await page.click('[data-testid=new-group]');
    await page.fill('[data-testid=group-name]', 'Web exact');
    await page.fill('[data-testid=group-apps]', 'web');
    const count = page.locator('[data-testid=scope-count]');
    await eventually(async () => ((await count.getAttribute('data-matched')) === String(WEB_LINES) ? true : undefined), 10_000, 'the web lines counted within the list');
    await page.click('[data-testid=save-group]');
    const admits = page.locator('[data-testid=group-admits]');
    await admits.waitFor();
    assert.equal(await admits.innerText(), 'Saved “Web exact”: in the last day it lets through apps: web; hosts: web-1.');
    assert.match(await page.locator('[data-testid=group-row]', { hasText: 'Web exact' }).innerText(), /apps: web/);

    // Each dialog is answered in turn from `answers`, and its words kept.
    const dialogs: string[] = [];
    const answers: boolean[] = [];
    const answer = (dialog: Dialog) => {
      dialogs.push(dialog.message());
      void (answers.shift() ? dialog.accept() : dialog.dismiss());
    };
    page.on('dialog', answer);
    const asked = (n: number) => eventually(() => (dialogs.length === n ? true : undefined), 10_000, `dialog ${n}`);
    const groupsOfInvited = () => memberRow(INVITED).locator('.group-checks summary').innerText();

    // Billing is the invited member's only scoped group: deleting it is asked about twice, the second time naming them.
    answers.push(true, false);
    await page.getByRole('button', { name: 'Delete group Billing' }).click();
    await asked(2);
    assert.match(dialogs[0], /^Delete the group “Billing”\?/);
    assert.equal(dialogs[1], `Deleting the group “Billing” would let ${INVITED} see every line of the organisation, with no limit: they would be in no scoped group. Do it anyway?`);
    assert.equal(await page.locator('[data-testid=group-row]', { hasText: 'Billing' }).count(), 1, 'declined: the group stays');
    answers.push(true, true);
    await page.getByRole('button', { name: 'Delete group Billing' }).click();
    await asked(4);
    await eventually(async () => ((await page.locator('[data-testid=group-row]', { hasText: 'Billing' }).count()) === 0 ? true : undefined), 5000, 'the group gone');
    await eventually(async () => ((await groupsOfInvited()) === 'No groups' ? true : undefined), 5000, 'the member in no group');

    // Into a scoped group without a question; out of it, only once confirmed.
    await memberRow(INVITED).locator('.group-checks summary').click();
    await memberRow(INVITED).getByRole('checkbox', { name: 'Web exact' }).check();
    await eventually(async () => ((await groupsOfInvited()) === 'Web exact' ? true : undefined), 5000, 'the group on the row');
    assert.equal(dialogs.length, 4, 'narrowing asks nothing');
    answers.push(false);
    await memberRow(INVITED).getByRole('checkbox', { name: 'Web exact' }).uncheck();
    await asked(5);
    assert.match(dialogs[4], new RegExp(`^Changing the groups of ${INVITED.replace('.', '\\.')} would let ${INVITED.replace('.', '\\.')} see every line`));
    await eventually(async () => ((await groupsOfInvited()) === 'Web exact' ? true : undefined), 5000, 'declined: still in the group');
    answers.push(true);
    await memberRow(INVITED).getByRole('checkbox', { name: 'Web exact' }).uncheck();
    await asked(6);
    await eventually(async () => ((await groupsOfInvited()) === 'No groups' ? true : undefined), 5000, 'confirmed: in no group');
    page.off('dialog', answer);
    const members = await request(`${server.url}/v1/config/members/${INVITED}`, { headers: { servicekey: server.org.serviceKey } });
    assert.deepEqual(members.json.groups, []);
  });

  test('nothing was blocked by the Content-Security-Policy, and the pages logged no errors', () => {
    assert.deepEqual(cspViolations, []);
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(consoleErrors, []);
  });
});
