/**
 * The parsing rules page, end to end in Chromium against a real server: an admin writes a rule,
 * tests it on the last lines of its app and sees the fields each would get before saving; a bad
 * pattern shows the server's reason; the saved rule parses the next lines; a reader sees the rule
 * and may test it but has no Save.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { browserMissing } from '../testing/browser.js';
import { type MemberSession, type TestServer, eventually, jsonLines, request, startTestServer } from '../testing/harness.js';
import { ingestLines, launchChromium, openSettings, reportingContext, signInWithPassword } from '../testing/viewer-e2e.js';

let server: TestServer;
let browser: Browser;
let admin: MemberSession;
let reader: MemberSession;
const cspViolations: string[] = [];
const pageErrors: string[] = [];
const consoleErrors: string[] = [];
/** Requests that fail on purpose: a pattern RE2 cannot run (400), and the session check before signing in (401). */
const PROVOKED = /^Failed to load resource: the server responded with a status of (400|401)\b/;

async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await reportingContext(browser, cspViolations, { viewport: { width: 1400, height: 900 }, locale: 'en-US' });
  const opened = await context.newPage();
  opened.on('pageerror', (error) => pageErrors.push(`${error.message}\n${error.stack}`));
  opened.on('console', (message) => {
    if (message.type() === 'error' && !PROVOKED.test(message.text())) consoleErrors.push(`${message.text()} (${message.location().url})`);
  });
  return { context, page: opened };
}

async function openParsers(page: Page, who: MemberSession) {
  await signInWithPassword(server, page, who.email, who.password);
  await page.waitForSelector('[data-testid=line]');
  await openSettings(page, 'parsing');
  await page.waitForSelector('[data-testid=parsers-page]');
}

describe('parsing rules in the viewer (Chromium)', { skip: browserMissing() }, () => {
  before(async () => {
    server = await startTestServer();
    const now = Date.now();
    await ingestLines(server, Array.from({ length: 5 }, (_, i) => ({ line: `checkout cart=${100 + i} total=${i * 10}.50 EUR`, app: 'shop', timestamp: now - 60_000 + i * 1000 })));
    await ingestLines(server, [{ line: 'unrelated line of another app', app: 'web', timestamp: now - 30_000 }]);
    admin = await server.signInAs('ada@example.com', 'admin');
    reader = await server.signInAs('rita@example.com', 'readonly');
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('an admin tries a rule on the last lines of its app, sees the fields, saves it, and it parses the next lines', async () => {
    const { context, page } = await newPage();
    await openParsers(page, admin);
    await page.click('[data-testid=new-parser]');
    await page.fill('[data-testid=parser-name]', 'checkout');
    await page.fill('[data-testid=parser-apps]', 'shop');
    // Not RE2: a backreference. The server's reason shows, nothing is saved.
    await page.fill('[data-testid=parser-pattern]', '(?P<cart>\\d+) \\1');
    await page.click('[data-testid=parser-test]');
    assert.match(await page.textContent('[data-testid=parser-error]') ?? '', /cannot run in RE2/);

    await page.fill('[data-testid=parser-pattern]', 'cart=(?P<cart>\\d+) total=(?P<total>[\\d.]+) (?P<currency>[A-Z]{3})');
    await page.selectOption('[data-testid=type-total]', 'number');
    await page.click('[data-testid=parser-test]');
    await page.waitForSelector('[data-testid=parser-results]');
    const shown = await page.locator('[data-testid=parser-fields]').allTextContents();
    assert.equal(shown.length, 5, 'the last lines of the app shop, not the other app');
    assert.deepEqual(JSON.parse(shown[0]), { cart: '104', total: 40.5, currency: 'EUR' }, 'newest first, total typed as a number');
    assert.equal((await request(`${server.url}/v1/config/parsers`, { headers: { servicekey: server.org.serviceKey } })).json.length, 0, 'testing saves nothing');

    await page.click('[data-testid=parser-save]');
    await page.waitForSelector('[data-testid=parsers-list] >> text=checkout');
    await ingestLines(server, [{ line: 'checkout cart=777 total=99.90 USD', app: 'shop' }]);
    const exported = await eventually(async () => {
      const reply = await request(`${server.url}/v1/export?from=${Date.now() - 3_600_000}&to=${Date.now() + 60_000}&query=${encodeURIComponent('total:>99')}`, { headers: { servicekey: server.org.serviceKey } });
      const lines = jsonLines(reply.text);
      return lines.length ? lines : undefined;
    });
    assert.equal(exported[0]._logtype, 'checkout');
    assert.equal(exported[0].cart, '777');
    await context.close();
  });

  test('a reader sees the rule and may test it, but cannot save or delete it', async () => {
    const { context, page } = await newPage();
    await openParsers(page, reader);
    await page.click('[data-testid=parsers-list] >> text=checkout');
    await page.waitForSelector('[data-testid=parser-editor]');
    assert.equal(await page.locator('[data-testid=parser-save]').count(), 0);
    assert.equal(await page.locator('[data-testid=parser-delete]').count(), 0);
    await page.fill('[data-testid=parser-samples]', 'checkout cart=1 total=2 GBP\nnot a checkout');
    await page.click('[data-testid=parser-test]');
    await page.waitForSelector('[data-testid=parser-results]');
    assert.deepEqual(await page.locator('[data-testid=parser-fields]').allTextContents(), ['{"cart":"1","total":2,"currency":"GBP"}', 'no match']);
    await context.close();
  });

  test('no CSP violation, page error or unexpected console error', () => {
    assert.deepEqual(cspViolations, []);
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(consoleErrors, []);
  });
});
