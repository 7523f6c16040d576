/**
 * The Patterns tab, end to end in Chromium (issue 40): a person opens it beside the lines, sees
 * the search's patterns with their counts and the new one marked, narrows the search to a
 * pattern in one click, and (as an admin) turns one into an exclusion rule. A readonly member
 * whose group sees two apps gets only those apps' patterns, and no Exclude button.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserMissing } from '../testing/browser.js';
import { type TestServer, request, startTestServer } from '../testing/harness.js';
import { ingestLines, launchChromium, reportingContext, signInWithPassword, signedInPage } from '../testing/viewer-e2e.js';

let server: TestServer;
let browser: Browser;
let page: Page;
const report = { violations: [] as string[], pageErrors: [] as string[] };
const MINUTE = 60_000;
const NOW = Date.now();

/** `count` lines made by `make`, spread over `minutes` minutes from `fromAgo` minutes ago. */
const spread = (count: number, fromAgo: number, minutes: number, app: string, make: (i: number) => string) =>
  Array.from({ length: count }, (_, i) => ({ line: make(i), app, level: 'info', timestamp: NOW - fromAgo * MINUTE + Math.floor((i * minutes * MINUTE) / count) }));

const requests = (i: number) => `GET /api/users/${100 + i * 7} 200 ${5 + (i % 40)}ms`;
const logins = (i: number) => `user ${['ann', 'bob', 'eve'][i % 3]} logged in from 10.1.0.${i + 1}`;
const quota = (i: number) => `disk quota exceeded on volume vol${'abc'[i % 3]} by ${i + 3}KB`;

/** The pattern rows shown: template text, count and whether marked new. */
async function rows(target: Page): Promise<Array<{ template: string; count: string; isNew: boolean }>> {
  await target.locator('[data-testid=patterns-pane][data-loaded=current] [data-testid=pattern-row]').first().waitFor();
  return target.locator('[data-testid=pattern-row]').evaluateAll((found) =>
    found.map((row) => ({
      template: row.querySelector('[data-testid=pattern-template]')!.textContent ?? '',
      count: row.querySelector('[data-testid=pattern-count]')!.textContent ?? '',
      isNew: row.querySelector('[data-testid=pattern-new]') !== null,
    })),
  );
}

const row = (target: Page, template: string) => target.locator('[data-testid=pattern-row]', { has: target.locator('[data-testid=pattern-template]', { hasText: template }) });

describe('the Patterns tab (Chromium)', { skip: browserMissing() }, () => {
  before(async () => {
    server = await startTestServer();
    // The hour before the last: requests and logins only. The last hour: those, and a new kind.
    await ingestLines(server, [...spread(10, 110, 40, 'api', requests), ...spread(6, 110, 40, 'auth', logins)]);
    await ingestLines(server, [...spread(30, 55, 50, 'api', requests), ...spread(12, 55, 50, 'auth', logins), ...spread(5, 40, 30, 'storage', quota)]);
    browser = await launchChromium();
    page = await signedInPage(browser, server, report, { viewport: { width: 1400, height: 900 }, locale: 'en-US' });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('lists the patterns by count, with their volume, and marks the new one', async () => {
    await page.click('[data-testid=tab-patterns]');
    assert.deepEqual(await rows(page), [
      { template: 'GET /api/users/<*> <*> <*>', count: '30', isNew: false },
      { template: 'user <*> logged in from <*>', count: '12', isNew: false },
      { template: 'disk quota exceeded on volume <*> by <*>', count: '5', isNew: true },
    ]);
    assert.equal(await page.locator('[data-testid=pattern-summary]').textContent(), '3 patterns of 47 lines');
    assert.equal(await page.locator('[data-testid=pattern-sparkline]').count(), 3);
    assert.equal(await row(page, 'disk quota').locator('mark.placeholder').count(), 2);
    // The lines are out of sight while the patterns are shown.
    assert.equal(await page.locator('[data-testid=line-list]').isVisible(), false);
  });

  test('Search narrows the lines to the pattern', async () => {
    await row(page, 'disk quota').getByRole('button', { name: 'Search' }).click();
    await page.locator('[data-testid=line-list]').waitFor({ state: 'visible' });
    assert.equal(await page.inputValue('[data-testid=query]'), '"disk quota exceeded on volume " "by "');
    await page.locator('.results[data-answered=current]').waitFor();
    const texts = await page.locator('[data-testid=line]').allTextContents();
    assert.equal(texts.length, 5, texts.join('\n'));
    assert.ok(texts.every((text) => text.includes('disk quota exceeded')), texts.join('\n'));
    // The patterns of the narrowed search: the one pattern.
    await page.click('[data-testid=tab-patterns]');
    assert.deepEqual((await rows(page)).map((found) => found.count), ['5']);
  });

  test('the tab is in the address, so reload, Back and Forward keep it', async () => {
    // Shown now: the narrowed search's patterns.
    assert.match(page.url(), /[?&]tab=patterns/);
    await page.reload();
    assert.equal(await page.getAttribute('[data-testid=tab-patterns]', 'aria-selected'), 'true');
    assert.deepEqual((await rows(page)).map((found) => found.count), ['5']);
    // Back past the narrowed search's lines, to the search whose pattern was searched: on its patterns.
    await page.goBack();
    await page.locator('[data-testid=line-list]').waitFor({ state: 'visible' });
    await page.goBack();
    await page.locator('[data-testid=patterns-pane]').waitFor({ state: 'visible' });
    assert.equal(await page.inputValue('[data-testid=query]'), '');
    assert.deepEqual((await rows(page)).map((found) => found.count), ['30', '12', '5']);
    assert.equal(await page.locator('[data-testid=line-list]').isVisible(), false);
    await page.goForward();
    await page.locator('[data-testid=line-list]').waitFor({ state: 'visible' });
    assert.equal(await page.inputValue('[data-testid=query]'), '"disk quota exceeded on volume " "by "');
    assert.equal(await page.getAttribute('[data-testid=tab-lines]', 'aria-selected'), 'true');
  });

  test('Exclude creates an exclusion rule for the pattern, after a confirmation', async () => {
    await page.fill('[data-testid=query]', '');
    await page.press('[data-testid=query]', 'Enter');
    await page.click('[data-testid=tab-patterns]');
    await rows(page);
    await row(page, 'user <*> logged in').getByRole('button', { name: 'Exclude' }).click();
    const confirm = page.locator('[data-testid=pattern-confirm]');
    await confirm.getByRole('button', { name: 'Create exclusion rule' }).click();
    await page.locator('[data-testid=pattern-note]', { hasText: 'Exclusion rule created' }).waitFor();
    const rules = await request(`${server.url}/v1/config/ingestion/exclusions`, { headers: { servicekey: server.org.serviceKey } });
    assert.deepEqual(
      rules.json.map(({ title, active, indexonly, query }: Record<string, unknown>) => ({ title, active, indexonly, query })),
      [{ title: 'Pattern: user <*> logged in from <*>', active: true, indexonly: true, query: '"user " "logged in from "' }],
    );
  });

  test("a readonly member in a scoped group sees only their apps' patterns, and no Exclude", async () => {
    const group = await request(`${server.url}/v1/config/groups`, {
      method: 'POST',
      headers: { servicekey: server.org.serviceKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'api and storage', access_scopes: ['app:api', 'app:storage'] }),
    });
    assert.equal(group.status, 200, group.text);
    const member = await server.signInAs('reader@example.com', 'readonly', { groups: [group.json.id] });
    const context = await reportingContext(browser, report.violations, { viewport: { width: 1400, height: 900 }, locale: 'en-US' });
    const reader = await context.newPage();
    reader.on('pageerror', (error) => report.pageErrors.push(error.message));
    await signInWithPassword(server, reader, member.email, member.password);
    await reader.waitForSelector('[data-testid=line]');
    await reader.click('[data-testid=tab-patterns]');
    assert.deepEqual(await rows(reader), [
      { template: 'GET /api/users/<*> <*> <*>', count: '30', isNew: false },
      { template: 'disk quota exceeded on volume <*> by <*>', count: '5', isNew: true },
    ]);
    const pane = reader.locator('[data-testid=patterns-pane]');
    assert.equal(await pane.getByRole('button', { name: 'Exclude', exact: true }).count(), 0);
    assert.equal(await pane.getByRole('button', { name: 'Search', exact: true }).count(), 2);
    await context.close();
  });

  test('no page error and no CSP violation', () => {
    assert.deepEqual(report.pageErrors, []);
    assert.deepEqual(report.violations, []);
  });
});
