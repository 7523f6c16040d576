/**
 * The viewer end to end in real headless Chromium (Debian's chromium, driven by playwright-core),
 * against a real server. With LOGSTEAD_SCREENSHOTS_DIR set it also saves the README's screenshots.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Browser, type BrowserContext, type BrowserContextOptions, type Dialog, type Page, chromium } from 'playwright-core';
import { viewUrl } from '../notify/alert-context.js';
import { CHROMIUM, browserMissing } from '../testing/browser.js';
import { type TestServer, eventually, request, startTestServer } from '../testing/harness.js';
import { startSmtpReceiver } from '../testing/receivers.js';
import { freePort } from '../testing/free-port.js';

const SHOTS = process.env.LOGSTEAD_SCREENSHOTS_DIR;
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
let browser: Browser;
let page: Page;
/** Everything the Content-Security-Policy blocked, in any page of any context. */
const cspViolations: string[] = [];

/** A browser context whose pages report each CSP violation (the listener is added outside the page's policy). */
async function newContext(options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  await context.exposeFunction('reportCspViolation', (violation: string) => cspViolations.push(violation));
  await context.addInitScript(
    "document.addEventListener('securitypolicyviolation', (event) => window.reportCspViolation(`${event.violatedDirective} blocked ${event.blockedURI} (${event.sourceFile}:${event.lineNumber})`))",
  );
  return context;
}


async function ingest(lines: Array<Record<string, unknown>>, host = 'web-1', key = server.org.ingestionKey) {
  const reply = await request(`${server.url}/logs/ingest?hostname=${host}&tags=prod`, {
    method: 'POST',
    headers: { apikey: key, 'content-type': 'application/json' },
    body: JSON.stringify({ lines }),
  });
  assert.equal(reply.status, 200, reply.text);
}

async function shot(name: string) {
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

async function signIn(target: Page, key: string) {
  await target.goto(server.url);
  await target.click('[data-testid=use-service-key]'); // the secondary way in: e-mail and password come first
  await target.fill('[data-testid=service-key]', key);
  await target.click('button[type=submit]');
}

const lineTexts = (target: Page = page) => target.locator('[data-testid=line] .text').allTextContents();

// Without a browser the whole file reports itself skipped, with the reason (see testing/browser.ts).
describe('the viewer in Chromium', { skip: browserMissing() }, () => {
  before(async () => {
    if (SHOTS) fs.mkdirSync(SHOTS, { recursive: true });
    smtp = await startSmtpReceiver();
    server = await startTestServer({ LOGSTEAD_PORT: String(await freePort()), LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS: 'true', LOGSTEAD_SMTP_URL: smtp.url });
    const now = Date.now();
    const apps = ['nginx', 'billing', 'db', 'auth'];
    const history = Array.from({ length: 240 }, (_, i) => {
      const app = apps[i % apps.length];
      const level = i % 11 === 0 ? 'error' : i % 7 === 0 ? 'warn' : 'info';
      const text =
        app === 'nginx' ? `GET /api/orders/${i} 200 ${10 + (i % 40)}ms` : app === 'billing' ? (level === 'error' ? `payment ${i} failed: card declined` : `payment ${i} captured`) : app === 'db' ? `query took ${i % 90}ms` : `user ${i % 13} signed in`;
      return { line: text, app, level, timestamp: now - (240 - i) * 10_000, meta: app === 'billing' ? { order: { id: i, amount: 12.5 + i } } : undefined };
    });
    await ingest(history.filter((_, i) => i % 2 === 0), 'web-1');
    await ingest(history.filter((_, i) => i % 2 === 1), 'web-2');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = await (await newContext({ viewport: { width: 1400, height: 820 } })).newPage();
    await signIn(page, server.org.serviceKey);
    await page.waitForSelector('[data-testid=line]');
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await smtp?.close();
  });

  test('signs in with a service key, and shows the newest lines with a timeline', async () => {
    assert.ok((await page.locator('[data-testid=line]').count()) > 10);
    const texts = await lineTexts();
    assert.ok(texts.some((text) => text.includes('signed in')));
    assert.ok((await page.locator('[data-testid=histogram] rect[fill^="var(--level"]').count()) > 0, 'bars, coloured by level');
    await shot('search');
  });

  test('exports the search by e-mail from the Export menu (a write, so the session sends its CSRF token)', async () => {
    const shown: string[] = [];
    const answer = (dialog: Dialog) => {
      shown.push(dialog.message());
      return dialog.type() === 'prompt' ? dialog.accept('analyst@example.com') : dialog.accept();
    };
    page.on('dialog', answer);
    const menu = page.locator('details.menu', { has: page.locator('summary', { hasText: 'Export' }) });
    await menu.locator('summary').click();
    await menu.getByRole('button', { name: 'Send by e-mail…' }).click();
    await eventually(() => (shown.length === 2 ? true : undefined), 5000, 'the prompt and the confirmation');
    page.off('dialog', answer);
    assert.match(shown[1], /will be e-mailed to analyst@example.com/);
    const mail = await eventually(() => smtp.messages[0], 10_000, 'the export e-mail');
    assert.match(JSON.stringify(mail.to), /analyst@example\.com/);
    await menu.locator('summary').click();
  });

  test('searches in the query language, and shows where a query is wrong', async () => {
    await page.fill('[data-testid=query]', 'app:billing level:error');
    await page.press('[data-testid=query]', 'Enter');
    await eventually(async () => ((await lineTexts()).every((text) => /payment \d+ failed/.test(text)) && (await lineTexts()).length > 0 ? true : undefined));
    assert.match(page.url(), /q=app%3Abilling\+level%3Aerror/);

    await page.fill('[data-testid=query]', 'app:billing (level:error');
    await page.press('[data-testid=query]', 'Enter');
    const error = page.locator('[data-testid=query-error]');
    await error.waitFor();
    assert.match(await error.innerText(), /to close the group opened at position 12/);
    assert.match(await error.innerText(), / {24}\^/, 'a caret under the position');

    await page.fill('[data-testid=query]', '');
    await page.press('[data-testid=query]', 'Enter');
    await error.waitFor({ state: 'detached' });
  });

  test('filter menus list real values with counts, and the URL keeps the whole state', async () => {
    await page.click('[data-testid=filter-apps] summary');
    const billing = page.locator('[data-testid=filter-apps] label', { hasText: 'billing' });
    assert.match(await billing.innerText(), /billing\s+60/);
    await billing.locator('input').check();
    await eventually(async () => ((await lineTexts()).every((text) => text.startsWith('payment')) ? true : undefined));
    assert.match(page.url(), /apps=billing/);
    await page.reload();
    await page.waitForSelector('[data-testid=line]');
    assert.ok((await lineTexts()).every((text) => text.startsWith('payment')), 'a reload keeps the search');
    await page.click('[data-testid=filter-apps] summary');
    await page.locator('[data-testid=filter-apps] label', { hasText: 'billing' }).locator('input').uncheck();
  });

  test('dragging over the timeline zooms into that range', async () => {
    const box = (await page.locator('[data-testid=histogram]').boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.5, box.y + 20);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.8, box.y + 20, { steps: 5 });
    await page.mouse.up();
    await eventually(() => (/from=\d+&to=\d+/.test(page.url()) ? true : undefined));
    const url = new URL(page.url());
    const span = Number(url.searchParams.get('to')) - Number(url.searchParams.get('from'));
    assert.ok(span < 30 * 60_000 && span > 10 * 60_000, `zoomed to ${span} ms of the last hour`);
    await page.selectOption('[data-testid=range]', '1h');
  });

  test('a line expands to its fields and meta; clicking a value adds it to the query; context opens', async () => {
    await page.fill('[data-testid=query]', 'app:billing');
    await page.press('[data-testid=query]', 'Enter');
    await eventually(async () => ((await lineTexts()).every((text) => text.startsWith('payment')) ? true : undefined));
    await page.locator('[data-testid=line] .line-summary').last().click();
    const details = page.locator('[data-testid=line-details]');
    await details.waitFor();
    assert.match(await details.innerText(), /order[\s\S]*id[\s\S]*amount/);
    await details.locator('.field-value', { hasText: /^web-\d$/ }).first().click();
    await eventually(async () => ((await page.inputValue('[data-testid=query]')).match(/^app:billing host:web-\d$/) ? true : undefined));

    await page.locator('[data-testid=line] .line-summary').last().click();
    await page.locator('[data-testid=line-details] button', { hasText: 'View in context' }).click();
    const dialog = page.getByRole('dialog', { name: 'Line in context' });
    await dialog.waitFor();
    await eventually(async () => ((await dialog.locator('[data-testid=context-line]').count()) >= 10 ? true : undefined));
    assert.equal(await dialog.locator('[data-testid=context-focus]').count(), 1);
    const before = await dialog.locator('[data-testid=context-line]').count();
    await dialog.getByText('Load 20 earlier').click();
    await eventually(async () => ((await dialog.locator('[data-testid=context-line]').count()) > before ? true : undefined));
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.fill('[data-testid=query]', '');
    await page.press('[data-testid=query]', 'Enter');
  });

  test('saves the search as a view with a webhook alert, showing the API\'s validation messages', async () => {
    await page.fill('[data-testid=query]', 'level:error');
    await page.press('[data-testid=query]', 'Enter');
    await page.click('[data-testid=save-view]');
    await page.fill('[data-testid=view-name]', 'Errors');
    // A category typed for the first time is created with the view, also when the first attempt
    // is refused and the form is sent again.
    await page.fill('[data-testid=view-category]', 'Incidents');
    await page.getByRole('button', { name: '+ webhook' }).click();
    await page.fill('[data-testid=webhook-url]', 'not a url');
    await page.getByRole('button', { name: 'Save view' }).click();
    const problems = page.locator('[data-testid=view-errors]');
    await problems.waitFor();
    assert.match(await problems.innerText(), /"channels\[0\]\.url" must be a valid uri/);
    await page.fill('[data-testid=webhook-url]', 'https://hooks.example.com/errors');
    await shot('alert-form');
    await page.getByRole('button', { name: 'Save view' }).click();
    const link = page.locator('[data-testid=view-link]', { hasText: 'Errors' });
    await link.waitFor();
    assert.equal(await link.getByRole('img', { name: 'has alerts' }).count(), 1, 'a bell marks it');
    const views = await request(`${server.url}/v1/config/view`, { headers: { servicekey: server.org.serviceKey } });
    const saved = views.json.find((view: { name: string }) => view.name === 'Errors');
    assert.equal(saved.query, 'level:error');
    assert.deepEqual(saved.category, ['Incidents']);
    assert.equal(saved.channels[0].url, 'https://hooks.example.com/errors');
    await page.fill('[data-testid=query]', '');
    await page.press('[data-testid=query]', 'Enter');
    await link.click();
    await eventually(async () => ((await page.inputValue('[data-testid=query]')) === 'level:error' ? true : undefined));
  });

  test('a view in several categories is listed under each, and editing it keeps them all', async () => {
    const config = (method: string, path: string, body?: unknown) =>
      request(`${server.url}${path}`, { method, headers: { servicekey: server.org.serviceKey, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    for (const name of ['Alpha', 'Beta']) assert.equal((await config('POST', '/v1/config/categories/views', { name })).status, 200);
    const created = await config('POST', '/v1/config/view', { name: 'Two homes', query: 'checkout', category: ['Alpha', 'Beta'] });
    assert.equal(created.status, 200, created.text);
    await page.reload();
    const sidebar = page.locator('nav.views');
    for (const heading of ['Alpha', 'Beta']) {
      await sidebar.locator('section', { has: page.locator('h3', { hasText: heading }) }).locator('[data-testid=view-link]', { hasText: 'Two homes' }).waitFor();
    }
    await page.getByRole('button', { name: 'Edit Two homes' }).first().click();
    assert.deepEqual(await page.locator('[data-testid=view-category-chip]').allInnerTexts().then((texts) => texts.map((text) => text.replace('×', '').trim())), ['Alpha', 'Beta']);
    await page.getByRole('button', { name: 'Save view' }).click();
    await page.locator('[role=dialog]').waitFor({ state: 'detached' });
    const after = await config('GET', `/v1/config/view/${created.json.viewid}`);
    assert.deepEqual(after.json.category, ['Alpha', 'Beta']);
    await page.getByRole('button', { name: 'Edit Two homes' }).first().click();
    await page.getByRole('button', { name: 'Remove category Beta' }).click();
    await page.getByRole('button', { name: 'Save view' }).click();
    await page.locator('[role=dialog]').waitFor({ state: 'detached' });
    assert.deepEqual((await config('GET', `/v1/config/view/${created.json.viewid}`)).json.category, ['Alpha']);
    assert.equal((await config('DELETE', `/v1/config/view/${created.json.viewid}`)).status, 200);
  });

  test('a link from an alert opens its view at its line, also a line older than the last hour', async () => {
    const views = await request(`${server.url}/v1/config/view`, { headers: { servicekey: server.org.serviceKey } });
    const errorsView = views.json.find((view: { name: string }) => view.name === 'Errors');
    await ingest([{ line: 'disk failure three hours ago', level: 'error', timestamp: Date.now() - 3 * 3_600_000 }]);
    const exported = (query: string) =>
      request(`${server.url}/v2/export?from=0&to=${Date.now()}&size=1&query=${encodeURIComponent(query)}`, { headers: { servicekey: server.org.serviceKey } });
    const [recent] = (await exported('level:error')).json.lines;
    const [old] = (await exported('"disk failure three hours ago"')).json.lines;
    for (const line of [recent, old]) {
      // The link exactly as alert messages build it.
      await page.goto(viewUrl(server.url, errorsView.viewid, line));
      await eventually(async () => ((await page.inputValue('[data-testid=query]')) === 'level:error' ? true : undefined));
      const details = page.locator('[data-testid=line-details]');
      await details.waitFor();
      assert.match(await details.innerText(), new RegExp(line._line));
    }
    await page.goto(server.url);
    await page.waitForSelector('[data-testid=line]');
  });

  test('live tail shows a new line within 2 seconds, pauses when scrolled up, and reconnects after a restart', async () => {
    await page.fill('[data-testid=query]', '');
    await page.press('[data-testid=query]', 'Enter');
    await page.check('[data-testid=live]');
    await eventually(async () => ((await page.locator('[data-testid=live-status]').getAttribute('data-status')) === 'live' ? true : undefined));
    const sent = Date.now();
    await ingest([{ line: 'fresh line from live tail', app: 'nginx' }]);
    await page.locator('[data-testid=line] .text', { hasText: 'fresh line from live tail' }).waitFor({ timeout: 2000 });
    assert.ok(Date.now() - sent < 2000);
    await shot('live-tail');

    await page.locator('[data-testid=line-list]').evaluate((list) => (list.scrollTop = 0));
    await page.waitForTimeout(300);
    await ingest([{ line: 'arrived while paused', app: 'nginx' }]);
    const marker = page.locator('[data-testid=new-lines]');
    await marker.waitFor();
    assert.match(await marker.innerText(), /1 new line —/);
    assert.equal(await page.locator('[data-testid=line] .text', { hasText: 'arrived while paused' }).count(), 0, 'held back while paused');
    await marker.click();
    await page.locator('[data-testid=line] .text', { hasText: 'arrived while paused' }).waitFor();

    await server.restart();
    await eventually(async () => ((await page.locator('[data-testid=live-status]').getAttribute('data-status')) === 'live' ? true : undefined), 15_000, 'the tail to reconnect');
    await ingest([{ line: 'after the restart', app: 'nginx' }]);
    await page.locator('[data-testid=line] .text', { hasText: 'after the restart' }).waitFor({ timeout: 5000 });
    await page.uncheck('[data-testid=live]');
  });

  test("another organisation's session sees none of these lines, views or tail", async () => {
    const other = await server.createOrg('other');
    const context = await newContext();
    const theirs = await context.newPage();
    await signIn(theirs, other.serviceKey);
    await theirs.getByText('No lines match in this range.').waitFor();
    assert.equal(await theirs.locator('[data-testid=view-link]').count(), 0);
    await theirs.check('[data-testid=live]');
    await eventually(async () => ((await theirs.locator('[data-testid=live-status]').getAttribute('data-status')) === 'live' ? true : undefined));
    await ingest([{ line: 'not for the other organisation' }]);
    await ingest([{ line: 'their own line' }], 'their-host', other.ingestionKey);
    await theirs.locator('[data-testid=line] .text', { hasText: 'their own line' }).waitFor();
    assert.deepEqual(await lineTexts(theirs), ['their own line']);
    await context.close();
  });

  test('the line list stays virtualised: thousands of lines loaded, only a screenful in the page', async () => {
    const busy = await server.createOrg('busy');
    const now = Date.now();
    for (let batch = 0; batch < 4; batch++) {
      await ingest(Array.from({ length: 2500 }, (_, i) => ({ line: `bulk line ${batch * 2500 + i}`, timestamp: now - 3_000_000 + (batch * 2500 + i) * 200 })), 'bulk', busy.ingestionKey);
    }
    const context = await newContext({ viewport: { width: 1400, height: 820 } });
    const busyPage = await context.newPage();
    await signIn(busyPage, busy.serviceKey);
    await busyPage.locator('[data-testid=line] .text', { hasText: 'bulk line 9999' }).waitFor();
    const list = busyPage.locator('[data-testid=line-list]');
    // Each scroll to the top loads an older page (500 lines).
    const loaded = await eventually(
      async () => {
        await list.evaluate((element) => {
          element.scrollTop = 50;
          element.scrollTop = 0;
        });
        await busyPage.waitForTimeout(200);
        const lines = await list.evaluate((element) => Math.round(element.scrollHeight / 22));
        return lines >= 3000 ? lines : undefined;
      },
      30_000,
      'older pages to load',
    );
    const rendered = await busyPage.locator('[data-testid=line]').count();
    assert.ok(rendered < 150, `${rendered} rows in the page for ${loaded} lines`);
    await context.close();
  });

  test('keyboard: / focuses the search, j and k move, Enter opens a line', async () => {
    await page.keyboard.press('Escape');
    await page.evaluate('document.activeElement && document.activeElement.blur()');
    await page.keyboard.press('/');
    assert.equal(await page.evaluate('document.activeElement && document.activeElement.getAttribute("data-testid")'), 'query');
    await page.evaluate('document.activeElement && document.activeElement.blur()');
    for (const key of ['j', 'j', 'j', 'k']) await page.keyboard.press(key);
    const selected = page.locator('[data-testid=line].selected');
    await selected.waitFor();
    await page.keyboard.press('Enter');
    await page.locator('[data-testid=line].selected [data-testid=line-details]').waitFor();
  });

  test('an error that is not about the query says so, without blaming the query', async () => {
    const now = Date.now();
    await page.goto(`${server.url}/?from=${now}&to=${now - 3_600_000}`);
    const error = page.locator('[data-testid=search-error]');
    await error.waitFor();
    assert.match(await error.innerText(), /"from" must not be later than "to"/);
    assert.equal(await page.locator('[data-testid=query-error]').count(), 0, 'the query is not blamed');
    assert.equal(await page.locator('[data-testid=line]').count(), 0);
    await page.goto(server.url);
    await page.waitForSelector('[data-testid=line]');
  });

  test('signing out in one tab ends the other tab\'s live tail and returns it to sign-in', async () => {
    await page.check('[data-testid=live]');
    await eventually(async () => ((await page.locator('[data-testid=live-status]').getAttribute('data-status')) === 'live' ? true : undefined));
    const other = await page.context().newPage();
    await other.goto(server.url);
    await other.getByRole('button', { name: 'Sign out' }).click();
    await other.locator('[data-testid=email]').waitFor();
    await page.locator('[data-testid=email]').waitFor({ timeout: 10_000 });
    await other.close();
  });

  test('the Content-Security-Policy blocked nothing the viewer did in any of these tests', () => {
    assert.deepEqual(cspViolations, []);
  });
});
