/**
 * The viewer as a place to explore logs, end to end in Chromium against a real server: marked
 * matches, the timeline chart, JSON lines and columns, the detail table, context, live tail's
 * pause count, query hints, stale results on a failing query, and the theme switch.
 * With LOGSTEAD_SCREENSHOTS_DIR set it also saves the README's screenshots of these.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserMissing } from '../testing/browser.js';
import { type TestServer, eventually, request, startTestServer } from '../testing/harness.js';
import { backToSearch, ingestLines, launchChromium, openSettings, reportingContext, signIn, signedInPage } from '../testing/viewer-e2e.js';

const SHOTS = process.env.LOGSTEAD_SCREENSHOTS_DIR;
let server: TestServer;
let browser: Browser;
let page: Page;
const cspViolations: string[] = [];
/** Uncaught errors in the page: each would leave the viewer blank. */
const pageErrors: string[] = [];

const lineTexts = () => page.locator('[data-testid=line] .text').allTextContents();
/** Runs a query and waits for its answer (or its error) to be on screen. */
async function searchFor(query: string) {
  await page.fill('[data-testid=query]', query);
  await page.press('[data-testid=query]', 'Enter');
  await eventually(() => ((new URL(page.url()).searchParams.get('q') ?? '') === query ? true : undefined));
  await page.locator('main.results[data-answered=current]').waitFor();
}
async function shot(name: string) {
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}
/** A computed style of an element, read in the page. */
const styleOf = (locator: ReturnType<Page['locator']>, property: string) =>
  locator.evaluate((element, name) => (globalThis as unknown as { getComputedStyle: (e: unknown) => Record<string, string> }).getComputedStyle(element)[name], property);
const queryInUrl = () => new URL(page.url()).searchParams.get('q') ?? '';

describe('exploring logs in the viewer (Chromium)', { skip: browserMissing() }, () => {
  before(async () => {
    if (SHOTS) fs.mkdirSync(SHOTS, { recursive: true });
    server = await startTestServer();
    const now = Date.now();
    const levels = (i: number) => (i % 9 === 0 ? 'error' : i % 5 === 0 ? 'warn' : 'info');
    await ingestLines(
      server,
      Array.from({ length: 180 }, (_, i) => ({
        line: i % 9 === 0 ? `payment ${i} failed: card declined` : `payment ${i} captured`,
        app: 'billing',
        level: levels(i),
        // Over the last 45 minutes, so the default hour still holds all 180 when a later test
        // searches it, however long the tests before it took.
        timestamp: now - 2_700_000 + i * 15_000,
        meta: { customer: i === 91 ? 'acme corp' : 'globex', order: { id: i }, ...(i === 91 ? { labels: ['vip', 'beta'], note: '<none>' } : {}) },
      })),
    );
    await ingestLines(
      server,
      Array.from({ length: 30 }, (_, i) => ({
        line: JSON.stringify({ msg: `checkout ${i} completed`, user: { id: 40 + (i % 3) }, region: i % 2 ? 'eu' : 'us', status: 200 }),
        app: 'api',
        level: 'info',
        timestamp: now - 1_200_000 + i * 20_000,
      })),
      'api-1',
    );
    await ingestLines(
      server,
      Array.from({ length: 120 }, (_, i) => ({ line: `worker step ${i}`, app: 'worker', level: 'debug', timestamp: now - 2_400_000 + i * 1000 })),
      'ctx-host',
    );
    browser = await launchChromium();
    // A zone half an hour off UTC, so local and UTC times differ in their minutes.
    page = await signedInPage(browser, server, { violations: cspViolations, pageErrors }, { viewport: { width: 1400, height: 860 }, timezoneId: 'Asia/Kolkata', locale: 'en-US' });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('the words and phrases of the query are marked in lines and in the detail table; negated words are not', async () => {
    await searchFor('payment "card declined" -captured');
    await eventually(async () => ((await lineTexts()).length > 0 && (await lineTexts()).every((text) => text.includes('failed')) ? true : undefined));
    const marks = await page.locator('[data-testid=line] .text mark').allTextContents();
    assert.ok(marks.some((mark) => mark === 'payment'), 'a word is marked');
    assert.ok(marks.some((mark) => mark === 'card declined'), 'a phrase is marked whole');
    await searchFor('PAY -failed');
    await eventually(async () => ((await lineTexts()).length > 0 && (await lineTexts()).every((text) => text.includes('captured')) ? true : undefined));
    assert.deepEqual([...new Set(await page.locator('[data-testid=line] .text mark').allTextContents())], ['pay'], 'a case-insensitive prefix, and nothing of the negated word');
    await page.locator('[data-testid=line] .line-summary').last().click();
    assert.ok((await page.locator('[data-testid=line-details] .raw-line mark').count()) > 0, 'the raw line in the detail panel');
    await searchFor('globex');
    await page.locator('[data-testid=line] .line-summary').last().click();
    assert.equal(await page.locator('[data-testid=field-row][data-field="meta.customer"] mark').innerText(), 'globex', 'a field value in the detail table');
    await shot('highlight');
    await searchFor('');
  });

  test('the timeline has time and count axes, its interval, a tooltip per bar, bars stacked by level, and a click zooms to a bar', async () => {
    await searchFor('app:billing');
    await page.locator('[data-testid=bar] rect').first().waitFor();
    const ticks = await page.locator('[data-testid=time-tick]').allTextContents();
    assert.ok(ticks.length >= 3, `time ticks: ${ticks}`);
    assert.ok(ticks.every((tick) => /\d{1,2}:\d{2}/.test(tick)), `readable clock times: ${ticks}`);
    assert.deepEqual((await page.locator('[data-testid=count-axis] text').allTextContents())[0], '0');
    assert.match(await page.locator('[data-testid=histogram-interval]').innerText(), /^Each bar: 1 minute$/);
    // Errors and warnings are segments of their own, stacked in the same bars as info.
    const stacked = page.locator('[data-testid=bar]', { has: page.locator('rect[data-level=error]') }).filter({ has: page.locator('rect[data-level=info]') });
    assert.ok((await stacked.count()) > 0, 'a bar stacked from error and info');
    assert.ok((await page.locator('rect[data-level=warn]').count()) > 0);
    const bar = stacked.first();
    const count = Number(await bar.getAttribute('data-count'));
    const box = (await bar.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height - 2);
    const tooltip = page.locator('[data-testid=histogram-tooltip]');
    await tooltip.waitFor();
    assert.match(await tooltip.innerText(), new RegExp(`–[\\s\\S]*${count} lines?[\\s\\S]*error: \\d`));
    await shot('timeline');
    await page.mouse.down();
    await page.mouse.up();
    await eventually(() => (/from=\d+&to=\d+/.test(page.url()) ? true : undefined));
    const url = new URL(page.url());
    const span = Number(url.searchParams.get('to')) - Number(url.searchParams.get('from'));
    assert.ok(Math.abs(span - 60_000) <= 2, `zoomed to that one-minute bar (${span} ms)`);
    await eventually(async () => (Number(await page.locator('[data-testid=histogram-total]').innerText().then((text) => text.replace(/\D/g, ''))) === count ? true : undefined));
    await page.selectOption('[data-testid=range]', '1h');
    await searchFor('');
  });

  test('times show in the local zone or in UTC, as chosen, and the choice is kept', async () => {
    const minutesShown = async () => {
      await page.locator('main.results[data-answered=current]').waitFor();
      // Text and time read together, from one element.
      const [text, iso] = await page.locator('[data-testid=line] time').last().evaluate((time) => [time.textContent ?? '', time.getAttribute('datetime') ?? '']);
      return { shown: Number(text.match(/\d{2}:(\d{2}):\d{2}/)![1]), utc: new Date(iso).getUTCMinutes() };
    };
    const local = await minutesShown();
    assert.equal(local.shown, (local.utc + 30) % 60, 'Kolkata is UTC+5:30');
    await page.selectOption('[data-testid=time-zone]', 'UTC');
    await eventually(async () => {
      const utc = await minutesShown();
      return utc.shown === utc.utc ? true : undefined;
    });
    assert.match(await page.locator('.histogram-axis').innerText(), /Times in UTC/);
    await page.reload();
    await page.waitForSelector('[data-testid=line]');
    const kept = await minutesShown();
    assert.equal(kept.shown, kept.utc);
    await page.selectOption('[data-testid=time-zone]', 'local');
  });

  test('a JSON line reads as its message with key=value chips and a raw toggle; a field added as a column stays after a reload and is saved with a view', async () => {
    await searchFor('app:api');
    await eventually(async () => ((await lineTexts()).length === 30 ? true : undefined));
    const last = page.locator('[data-testid=line]').last();
    assert.match(await last.locator('.text').innerText(), /^checkout 29 completed/);
    assert.deepEqual(await last.locator('[data-testid=kv]').allTextContents(), ['user.id=42', 'region=eu', 'status=200']);
    await page.check('[data-testid=raw-toggle]');
    assert.match(await last.locator('.text').innerText(), /^\{"msg":"checkout 29 completed"/);
    await page.uncheck('[data-testid=raw-toggle]');

    await page.fill('[data-testid=add-column]', 'user.id');
    await page.press('[data-testid=add-column]', 'Enter');
    await eventually(() => (new URL(page.url()).searchParams.get('columns') === 'level,host,app,user.id' ? true : undefined));
    assert.equal(await page.locator('[data-testid=line]').last().locator('[data-column="user.id"]').innerText(), '42');
    await page.getByRole('button', { name: 'Remove column host' }).click();
    await page.reload();
    await page.locator('[data-testid=line]').last().locator('[data-column="user.id"]').waitFor();
    assert.deepEqual(await page.locator('[data-testid=column-chip]').allInnerTexts().then((texts) => texts.map((text) => text.replace('×', '').trim())), ['level', 'app', 'user.id']);
    assert.equal(await page.locator('[data-testid=line] [data-column=host]').count(), 0);
    await shot('json-columns');

    await page.click('[data-testid=save-view]');
    await page.fill('[data-testid=view-name]', 'Checkouts');
    await page.getByRole('button', { name: 'Save view' }).click();
    await page.locator('[role=dialog]').waitFor({ state: 'detached' });
    const views = await request(`${server.url}/v1/config/view`, { headers: { servicekey: server.org.serviceKey } });
    assert.match(views.json.find((view: { name: string }) => view.name === 'Checkouts').description, /^Columns: level, app, user\.id$/m);
    await page.goto(server.url);
    await page.locator('[data-testid=view-link]', { hasText: 'Checkouts' }).click();
    await eventually(async () => ((await page.locator('[data-testid=column-chip]').count()) === 3 ? true : undefined));
    await page.locator('[data-testid=line] [data-column="user.id"]').first().waitFor();
    await searchFor('');
    await page.goto(server.url);
    await page.waitForSelector('[data-testid=line]');
  });

  test('the detail table filters for and out by a value, a meta value finds its line, and timestamps do not wrap', async () => {
    await searchFor('app:api');
    await eventually(async () => ((await lineTexts()).length === 30 ? true : undefined));
    await page.locator('[data-testid=line] .line-summary').last().click();
    const region = page.locator('[data-testid=field-row][data-field=region]');
    await region.locator('[data-testid=filter-for]').click();
    await eventually(() => (queryInUrl() === 'app:api region:eu' ? true : undefined));
    await eventually(async () => ((await lineTexts()).length === 15 ? true : undefined));
    await searchFor('app:api');
    await eventually(async () => ((await lineTexts()).length === 30 ? true : undefined));
    await page.locator('[data-testid=line] .line-summary').last().click();
    await page.locator('[data-testid=field-row][data-field=region] [data-testid=filter-out]').click();
    await eventually(() => (queryInUrl() === 'app:api -region:eu' ? true : undefined));
    await eventually(async () => ((await lineTexts()).length === 15 && (await page.locator('[data-testid=kv]', { hasText: 'region=eu' }).count()) === 0 ? true : undefined));
    const time = page.locator('[data-testid=line] time').first();
    assert.equal(await styleOf(time, 'whiteSpace'), 'nowrap');

    await searchFor('payment 91');
    await eventually(async () => ((await lineTexts()).includes('payment 91 captured') ? true : undefined));
    await page.locator('[data-testid=line] .line-summary', { hasText: 'payment 91 captured' }).click();
    const details = page.locator('[data-testid=line-details]');
    assert.equal(await styleOf(details.locator('[data-testid=field-row][data-field=timestamp] td').first(), 'whiteSpace'), 'nowrap');
    for (const [field, query] of [
      ['meta.customer', 'meta.customer:"acme corp"'],
      ['meta.order.id', 'meta.order.id:91'],
      // Each value of an array is its own filter; a value that looks like an operator is quoted.
      ['meta.labels', 'meta.labels:vip'],
      ['meta.note', 'meta.note:"<none>"'],
    ]) {
      await searchFor('');
      await searchFor('payment 91');
      await page.locator('[data-testid=line] .line-summary', { hasText: 'payment 91 captured' }).click();
      await details.locator(`[data-testid=field-row][data-field="${field}"] .field-value`).first().click();
      await eventually(() => (queryInUrl() === `payment 91 ${query}` ? true : undefined));
      await eventually(async () => ((await lineTexts()).join() === 'payment 91 captured' ? true : undefined), 5000, `${query} finds the line`);
    }
    await searchFor('');
  });

  test('context opens at the chosen line, highlighted, and loads more lines on demand', async () => {
    await searchFor('"worker step 60"');
    await page.locator('[data-testid=line] .line-summary', { hasText: 'worker step 60' }).click();
    await page.locator('[data-testid=line-details] button', { hasText: 'View in context' }).click();
    const dialog = page.getByRole('dialog', { name: 'Line in context' });
    const focus = dialog.locator('[data-testid=context-focus]');
    await focus.waitFor();
    assert.match(await focus.innerText(), /worker step 60$/);
    assert.equal(await focus.getAttribute('aria-current'), 'true');
    const panel = (await dialog.locator('.modal-body').boundingBox())!;
    const line = (await focus.boundingBox())!;
    assert.ok(line.y > panel.y + 40 && line.y + line.height < panel.y + panel.height, 'scrolled into view, with lines above it');
    await shot('context-at-line');
    const before = await dialog.locator('[data-testid=context-line]').count();
    await dialog.getByText('Load 20 earlier').click();
    await eventually(async () => ((await dialog.locator('[data-testid=context-line]').count()) === before + 20 ? true : undefined));
    assert.match(await dialog.locator('[data-testid=context-line]').first().innerText(), /worker step 20$/);
    await dialog.getByText('Load 20 later').click();
    await eventually(async () => ((await dialog.locator('[data-testid=context-line]').count()) === before + 40 ? true : undefined));
    await dialog.getByRole('button', { name: 'Close' }).click();
    await searchFor('');
  });

  test('live tail counts the lines that arrive while paused, the timeline counts them as they come, and sampling is announced', async () => {
    await searchFor('app:tailed');
    await page.check('[data-testid=live]');
    await eventually(async () => ((await page.locator('[data-testid=live-status]').getAttribute('data-status')) === 'live' ? true : undefined));
    await ingestLines(server, Array.from({ length: 40 }, (_, i) => ({ line: `tailed ${i}`, app: 'tailed' })));
    await page.locator('[data-testid=line] .text', { hasText: 'tailed 39' }).waitFor();
    await eventually(async () => ((await page.locator('[data-testid=histogram-total]').innerText()) === '40 lines' ? true : undefined), 5000, 'the timeline to count live lines');
    await page.locator('[data-testid=line-list]').evaluate((list) => (list.scrollTop = 0));
    await page.waitForTimeout(300);
    await ingestLines(server, Array.from({ length: 3 }, (_, i) => ({ line: `while paused ${i}`, app: 'tailed' })));
    const marker = page.locator('[data-testid=new-lines]');
    await eventually(async () => ((await marker.count()) && /^3 new lines —/.test(await marker.innerText()) ? true : undefined));
    await eventually(async () => ((await page.locator('[data-testid=histogram-total]').innerText()) === '43 lines' ? true : undefined));
    await marker.click();
    await page.locator('[data-testid=line] .text', { hasText: 'while paused 2' }).waitFor();

    // More than the tail's 1,000 lines a second: it samples, and says so while it does.
    await ingestLines(server, Array.from({ length: 2500 }, (_, i) => ({ line: `flood ${i}`, app: 'tailed' })));
    // The server reports a second's skipped lines with the first delivery of a later second.
    await page.waitForTimeout(1100);
    await ingestLines(server, [{ line: 'after the flood', app: 'tailed' }]);
    const notice = page.locator('[data-testid=sampling]');
    await notice.waitFor();
    assert.match(await notice.innerText(), /sampling: .* [\d,]+ skipped so far/);
    await page.uncheck('[data-testid=live]');
    await searchFor('');
  });

  test('queries explain themselves: field-name and wildcard hints, a failing query keeps the old results greyed, bad URL parameters and reversed ranges are reported', async () => {
    await searchFor('tags:prod');
    const hint = page.locator('[data-testid=query-hint]');
    await hint.first().waitFor();
    assert.match(await hint.first().innerText(), /"tags".*did you mean tag:\?/);
    await searchFor('app:billing');
    await eventually(async () => ((await hint.count()) === 0 ? true : undefined));
    await searchFor('fail*');
    await hint.first().waitFor();
    assert.match(await hint.first().innerText(), /not a wildcard/);

    await searchFor('app:billing');
    await eventually(async () => ((await page.locator('[data-testid=histogram-total]').innerText()) === '180 lines' && (await page.locator('main.results').getAttribute('data-stale')) === 'false' ? true : undefined));
    const shown = await lineTexts();
    await searchFor('app:billing (level:error');
    await page.locator('[data-testid=query-error]').waitFor();
    assert.equal(await page.locator('main.results').getAttribute('data-stale'), 'true');
    assert.deepEqual(await lineTexts(), shown, 'the previous results stay');
    assert.equal(await page.locator('[data-testid=histogram-total]').innerText(), '180 lines');
    await page.locator('[data-testid=stale-note]').waitFor();
    assert.ok(Number(await styleOf(page.locator('[data-testid=line-list]'), 'opacity')) < 1, 'greyed');
    await searchFor('');
    await eventually(async () => ((await page.locator('main.results').getAttribute('data-stale')) === 'false' ? true : undefined));

    await page.goto(`${server.url}/?range=2w&colour=red`);
    const problems = page.locator('[data-testid=url-problems]');
    await problems.waitFor();
    assert.match(await problems.innerText(), /range "2w" is not one of/);
    assert.match(await problems.innerText(), /"colour" is not one the viewer knows/);

    const now = Date.now();
    await page.goto(`${server.url}/?from=${now}&to=${now - 3_600_000}`);
    const fromUrl = await page.locator('[data-testid=search-error]').innerText();
    await page.click('[data-testid=range-summary]');
    await page.fill('[data-testid=range-from]', '2026-01-02T10:00:00');
    await page.fill('[data-testid=range-to]', '2026-01-01T10:00:00');
    assert.equal(await page.locator('[data-testid=range-problem]').innerText(), fromUrl, 'the same message from the picker as from the URL');
    assert.ok(await page.getByRole('button', { name: 'Apply' }).isDisabled(), 'a reversed range cannot be applied');
    assert.match(fromUrl, /"from" must not be later than "to"/);
    await page.goto(server.url);
    await page.waitForSelector('[data-testid=line]');
  });

  test('the theme follows the operating system until switched, and the switch is kept', async () => {
    const context = await reportingContext(browser, cspViolations, { colorScheme: 'dark', viewport: { width: 1400, height: 860 } });
    const dark = await context.newPage();
    await signIn(server, dark, server.org.serviceKey);
    await dark.waitForSelector('[data-testid=line]');
    const theme = () => dark.evaluate('document.documentElement.dataset.theme');
    assert.equal(await theme(), 'dark');
    const background = () => dark.evaluate('getComputedStyle(document.body).backgroundColor');
    const darkBackground = await background();
    if (SHOTS) await dark.screenshot({ path: path.join(SHOTS, 'dark.png') });
    await dark.click('[data-testid=theme]');
    assert.equal(await theme(), 'light');
    assert.notEqual(await background(), darkBackground);
    await dark.reload();
    await dark.waitForSelector('[data-testid=line]');
    assert.equal(await theme(), 'light', 'the choice outlasts a reload');
    await context.close();
  });

  test('the usage page shows lines and bytes per day, the top apps and hosts, and the retention in force', async () => {
    const expected = (await request(`${server.url}/v1/usage?from=${Date.now() - 30 * 86_400_000}&to=${Date.now()}`, { headers: { servicekey: server.org.serviceKey } })).json;
    await openSettings(page, 'usage');
    const usage = page.locator('[data-testid=usage-page]');
    await usage.waitFor();
    await eventually(async () => ((await usage.locator('[data-testid=usage-day]').count()) > 0 ? true : undefined));
    assert.match(await usage.locator('[data-testid=usage-retention]').innerText(), /30 days.*default/);
    assert.match(await usage.locator('[data-testid=usage-totals]').innerText(), new RegExp(`${expected.totals.lines.toLocaleString('en')} lines`));
    assert.equal(await usage.locator('[data-testid=usage-day]').count(), expected.days.length);
    const apps = await usage.getByRole('region', { name: 'Top apps' }).locator('tbody td:first-child').allInnerTexts();
    assert.deepEqual(apps, expected.topApps.map((app: { name: string }) => app.name));
    await shot('usage');
    await backToSearch(page);
    await usage.waitFor({ state: 'detached' });
  });

  test('the Content-Security-Policy blocked nothing in these tests, and the page threw nothing', () => {
    assert.deepEqual(cspViolations, []);
    assert.deepEqual(pageErrors, []);
  });
});
