/**
 * The viewer's filter menus and alert tools, end to end in Chromium against a real server and
 * real receivers: menus counted with the other menus' selections, the mark on a line whose meta
 * is not searchable, and the view editor's test send, headers, time zones, save warnings, field
 * names in errors, delivery history and backtest.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserMissing } from '../testing/browser.js';
import { type TestServer, eventually, request, startTestServer } from '../testing/harness.js';
import { startHttpReceiver } from '../testing/receivers.js';
import { ingestLines, launchChromium, signedInPage } from '../testing/viewer-e2e.js';

let server: TestServer;
let browser: Browser;
let page: Page;
let hooks: Awaited<ReturnType<typeof startHttpReceiver>>;
const cspViolations: string[] = [];
const pageErrors: string[] = [];

async function searchFor(query: string) {
  await page.fill('[data-testid=query]', query);
  await page.press('[data-testid=query]', 'Enter');
  await eventually(() => ((new URL(page.url()).searchParams.get('q') ?? '') === query ? true : undefined));
  await page.locator('main.results[data-answered=current]').waitFor();
}
const api = (path: string, init: RequestInit = {}) =>
  request(`${server.url}${path}`, { ...init, headers: { servicekey: server.org.serviceKey, 'content-type': 'application/json' } });
/** The count a filter menu shows beside a value. */
const menuCount = (kind: string, value: string) =>
  page.locator(`[data-testid=filter-${kind}] label`).filter({ has: page.locator('.filter-value', { hasText: new RegExp(`^${value}$`) }) }).locator('.count');

describe('filter menus and alert tools in the viewer (Chromium)', { skip: browserMissing() }, () => {
  before(async () => {
    hooks = await startHttpReceiver();
    server = await startTestServer({ LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS: 'true', LOGSTEAD_DELIVERY_RETRY_BASE_MS: '20' });
    const now = Date.now();
    await ingestLines(server, Array.from({ length: 3 }, (_, i) => ({ line: `alpha on h1 ${i}`, app: 'alpha', level: 'info', timestamp: now - 60_000 })), 'h1');
    await ingestLines(
      server,
      [...Array.from({ length: 2 }, (_, i) => ({ line: `alpha on h2 ${i}`, app: 'alpha' })), ...Array.from({ length: 4 }, (_, i) => ({ line: `beta on h2 ${i}`, app: 'beta' }))].map((line) => ({ ...line, level: 'info', timestamp: now - 60_000 })),
      'h2',
    );
    // A field first seen as a number, then sent as text: the second line's meta is kept unsearchable.
    await ingestLines(server, [{ line: 'metaword first', app: 'gamma', meta: { n: 1 }, timestamp: now - 50_000 }], 'h3');
    await ingestLines(server, [{ line: 'metaword second', app: 'gamma', meta: { n: 'x' }, timestamp: now - 40_000 }], 'h3');
    // Lines of three hours ago, for the backtest.
    await ingestLines(server, Array.from({ length: 5 }, (_, i) => ({ line: `backtestword ${i}`, app: 'delta', timestamp: now - 3 * 3_600_000 + i * 1000 })), 'h9');
    browser = await launchChromium();
    page = await signedInPage(browser, server, { violations: cspViolations, pageErrors }, { viewport: { width: 1400, height: 900 }, locale: 'en-US' });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await hooks?.close();
    assert.deepEqual(cspViolations, [], 'no CSP violations');
    assert.deepEqual(pageErrors, [], 'no uncaught errors in the page');
  });

  test("each filter menu is counted with the other menus' selections", async () => {
    await page.locator('[data-testid=filter-hosts] summary').click();
    await eventually(async () => ((await menuCount('hosts', 'h2').innerText()) === '6' ? true : undefined), 5000, 'h2 counts all its lines');
    await page.locator('[data-testid=filter-apps] summary').click();
    await page.locator('[data-testid=filter-apps] label').filter({ hasText: 'alpha' }).locator('input').check();
    await eventually(async () => ((await menuCount('hosts', 'h2').innerText()) === '2' ? true : undefined), 5000, 'h2 counts only its alpha lines');
    assert.equal(await menuCount('hosts', 'h1').innerText(), '3');
    assert.equal(await menuCount('hosts', 'h3').count(), 0, 'a host without alpha lines is not listed');
    // The app menu is not narrowed by its own selection: the other apps stay, with their counts.
    assert.equal(await menuCount('apps', 'beta').innerText(), '4');
    assert.equal(await menuCount('apps', 'alpha').innerText(), '5');
    await page.locator('[data-testid=filter-apps] label').filter({ hasText: 'alpha' }).locator('input').uncheck();
    await eventually(async () => ((await menuCount('hosts', 'h2').innerText()) === '6' ? true : undefined), 5000, 'all lines again');
    await page.locator('[data-testid=filter-apps] summary').click();
    await page.locator('[data-testid=filter-hosts] summary').click();
  });

  test('a line whose meta is not searchable carries a badge saying why, in the list and in its details', async () => {
    await searchFor('metaword');
    const second = page.locator('[data-testid=line]', { hasText: 'metaword second' });
    const first = page.locator('[data-testid=line]', { hasText: 'metaword first' });
    await second.waitFor();
    assert.equal(await first.locator('[data-testid=meta-unindexed]').count(), 0, 'searchable meta has no badge');
    const badge = second.locator('.line-summary [data-testid=meta-unindexed]');
    assert.equal(await badge.getAttribute('data-reason'), 'type-conflict');
    assert.equal(await badge.getAttribute('title'), 'meta not searchable: a field has another type than the one first seen');
    await second.locator('.line-summary').click();
    const inDetails = second.locator('[data-testid=line-details] [data-testid=meta-unindexed]');
    await inDetails.waitFor();
    assert.match((await inDetails.getAttribute('title')) ?? '', /another type/);
    await second.locator('.line-summary').click();
    await searchFor('');
  });

  test('a view editor sends a test, takes headers and a listed time zone, names fields in errors, and shows save warnings', async () => {
    await searchFor('hookword');
    await page.click('[data-testid=save-view]');
    const dialog = page.getByRole('dialog');
    await page.fill('[data-testid=view-name]', 'Hooked');
    await dialog.getByRole('button', { name: '+ webhook' }).click();
    await page.fill('[data-testid=webhook-url]', 'not a url');
    await dialog.getByRole('button', { name: 'Save view' }).click();
    const problems = dialog.locator('[data-testid=view-errors]');
    await problems.waitFor();
    assert.match(await problems.innerText(), /^Alert channel 1: Webhook URL: .*must be a valid uri/m);

    await page.fill('[data-testid=webhook-url]', `${hooks.url}/hook`);
    await dialog.getByRole('button', { name: '+ header' }).click();
    await dialog.getByLabel('Header name').fill('X-Token');
    await dialog.getByLabel('Header value').fill('secret');
    await dialog.locator('[data-testid=send-test]').click();
    const answer = dialog.locator('[data-testid=test-result]');
    await answer.waitFor();
    assert.match(await answer.innerText(), /^Delivered \(200\)/);
    const sent = hooks.received.find((received) => received.path === '/hook');
    assert.equal(sent?.headers['x-token'], 'secret', 'the test carried the header');

    await dialog.getByRole('button', { name: '+ E-mail' }).click();
    const zone = dialog.getByLabel('Time zone');
    assert.ok((await zone.locator('option').count()) > 100, 'the zones are listed');
    await zone.selectOption('Europe/Berlin');
    await dialog.getByLabel('E-mail addresses').fill('ops@example.com');
    await dialog.getByRole('button', { name: 'Save view' }).click();
    // No SMTP server here: the view is saved, and the editor stays open to say the e-mail cannot go.
    const warning = dialog.locator('[data-testid=view-warning]');
    await warning.waitFor();
    assert.equal(await warning.getAttribute('data-code'), 'smtp-not-configured');
    assert.match(await warning.innerText(), /^Alert 2: .*SMTP/);
    await dialog.locator('[data-testid=close-warnings]').click();
    await page.locator('[data-testid=view-link]', { hasText: 'Hooked' }).waitFor();
    const saved = (await api('/v1/config/view')).json.find((view: { name: string }) => view.name === 'Hooked');
    assert.deepEqual(saved.channels[0].headers, { 'X-Token': 'secret' });
    assert.equal(saved.channels[1].timezone, 'Europe/Berlin');
  });

  test("an existing view's editor lists its deliveries with outcome, status code and retries", async () => {
    const saved = (await api('/v1/config/view')).json.find((view: { name: string }) => view.name === 'Hooked');
    hooks.answer(500);
    await ingestLines(server, [{ line: 'hookword fired', app: 'alpha' }], 'h1');
    await eventually(async () => {
      const log = (await api(`/v1/alerts/deliveries?viewid=${saved.viewid}`)).json;
      return log.find((entry: { integration: string; status: string }) => entry.integration === 'webhook' && entry.status === 'delivered');
    }, 10_000, 'the webhook delivered after a retry');
    await page.getByRole('button', { name: 'Edit Hooked' }).click();
    const dialog = page.getByRole('dialog');
    const row = dialog.locator('[data-testid=delivery]', { hasText: `${hooks.url}/hook` });
    await row.waitFor();
    assert.equal(await row.locator('[data-testid=delivery-outcome]').innerText(), 'delivered');
    assert.equal(await row.locator('[data-testid=delivery-status]').innerText(), '200');
    assert.equal(await row.locator('[data-testid=delivery-retries]').innerText(), '1');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  test('a backtest lists the firings the alert would have made and marks them on a strip', async () => {
    await searchFor('backtestword');
    await page.click('[data-testid=save-view]');
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: '+ webhook' }).click();
    await dialog.getByLabel('Backtest days').selectOption('2');
    await dialog.locator('[data-testid=backtest]').click();
    await dialog.locator('[data-testid=backtest-result]').waitFor();
    const expected = (
      await api('/v1/alerts/backtest', {
        method: 'POST',
        body: JSON.stringify({ query: 'backtestword', hosts: [], apps: [], levels: [], tags: [], days: 2, channel: { integration: 'webhook', url: 'https://x.example', operator: 'presence', triggerlimit: 1, triggerinterval: '30', immediate: true, terminal: false } }),
      })
    ).json;
    assert.ok(expected.firings.length >= 1, 'the lines of three hours ago fire it');
    const rows = dialog.locator('[data-testid=backtest-firing]');
    assert.equal(await rows.count(), expected.firings.length);
    assert.equal(await dialog.locator('[data-testid=backtest-tick]').count(), expected.firings.length);
    const cells = await rows.first().locator('td').allInnerTexts();
    assert.equal(cells[1], expected.firings[0].kind);
    assert.equal(cells[2], String(expected.firings[0].lines));
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await searchFor('');
  });
});
