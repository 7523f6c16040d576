/**
 * Fields in the viewer, end to end in Chromium against a real server: a line parsed at ingest from
 * nginx or logfmt text shows its fields in the detail panel, as chips and in columns, and filters
 * by them; the fields sidebar lists the search's fields with their top values and stats, and a
 * value adds itself (or its negation) to the search. A scoped member's sidebar holds only what
 * their scope lets them read.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserMissing } from '../testing/browser.js';
import { type TestServer, eventually, request, startTestServer } from '../testing/harness.js';
import { ingestLines, launchChromium, reportingContext, signedInPage, signInWithPassword } from '../testing/viewer-e2e.js';

let server: TestServer;
let browser: Browser;
let page: Page;
const report = { violations: [] as string[], pageErrors: [] as string[] };

/** A CLF time (`26/Nov/2026:10:00:00 +0000`). */
function clfTime(ms: number): string {
  const date = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(date.getUTCDate())}/${date.toUTCString().split(' ')[2]}/${date.getUTCFullYear()}:${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`;
}

const queryInUrl = (on: Page) => new URL(on.url()).searchParams.get('q') ?? '';
async function searchFor(on: Page, query: string) {
  await on.fill('[data-testid=query]', query);
  await on.press('[data-testid=query]', 'Enter');
  await eventually(() => (queryInUrl(on) === query ? true : undefined));
  await on.locator('main.results[data-answered=current]').waitFor();
}
const lineCount = (on: Page) => on.locator('[data-testid=line]').count();
/** The sidebar's entry for a field, opened. */
async function openField(on: Page, name: string) {
  const entry = on.locator(`[data-testid=fields-sidebar] [data-testid=field-entry][data-field="${name}"]`);
  await entry.waitFor();
  if ((await entry.getAttribute('open')) === null) await entry.locator('summary').click();
  return entry;
}

describe('fields in the viewer (Chromium)', { skip: browserMissing() }, () => {
  before(async () => {
    server = await startTestServer();
    const now = Date.now();
    // 30 nginx lines: statuses 200 (21), 404 (6), 502 (3).
    await ingestLines(
      server,
      Array.from({ length: 30 }, (_, i) => ({
        line: `10.0.0.${i % 5} - - [${clfTime(now - 600_000 + i * 1000)}] "GET /cart/${i} HTTP/1.1" ${i % 5 === 0 ? 404 : i % 7 === 3 ? 502 : 200} ${100 + i} "-" "curl/8.5" 0.0${i % 10}`,
        app: 'nginx',
        timestamp: now - 600_000 + i * 1000,
      })),
      'edge-1',
    );
    // 10 logfmt lines: status 402 (4) or 200 (6).
    await ingestLines(
      server,
      Array.from({ length: 10 }, (_, i) => ({ line: `at=info msg="charge ${i}" status=${i % 3 === 0 ? 402 : 200} duration_ms=${10 * i} customer=acme`, app: 'billing', timestamp: now - 300_000 + i * 1000 })),
      'worker-1',
    );
    browser = await launchChromium();
    page = await signedInPage(browser, server, report, { viewport: { width: 1400, height: 900 } });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('a line parsed from nginx or logfmt text shows status in its details, as a chip and in a column, and filters by it', async () => {
    await searchFor(page, 'app:nginx');
    await eventually(async () => ((await lineCount(page)) === 30 ? true : undefined));
    const nginxLine = page.locator('[data-testid=line]', { hasText: 'GET /cart/3 ' });
    assert.ok((await nginxLine.locator('[data-testid=kv]').allTextContents()).includes('status=502'), 'a chip');
    await nginxLine.locator('.line-summary').click();
    const details = page.locator('[data-testid=line-details]');
    assert.equal(await details.locator('[data-testid=field-row][data-field=status] .field-value').innerText(), '502');
    assert.equal(await details.locator('[data-testid=field-row][data-field=path] .field-value').innerText(), '/cart/3');
    await details.locator('[data-testid=field-row][data-field=status] [data-testid=filter-for]').click();
    await eventually(() => (queryInUrl(page) === 'app:nginx status:502' ? true : undefined));
    await eventually(async () => ((await lineCount(page)) === 3 ? true : undefined), 5000, 'the three 502s');

    await searchFor(page, 'app:billing');
    await eventually(async () => ((await lineCount(page)) === 10 ? true : undefined));
    const logfmtLine = page.locator('[data-testid=line]', { hasText: 'charge 3' });
    await logfmtLine.locator('.line-summary').click();
    assert.equal(await page.locator('[data-testid=line-details] [data-testid=field-row][data-field=status] .field-value').innerText(), '402');
    assert.equal(await page.locator('[data-testid=line-details] [data-testid=field-row][data-field=customer] .field-value').innerText(), 'acme');
    await page.locator('[data-testid=line-details] [data-testid=field-row][data-field=status] [data-testid=filter-out]').click();
    await eventually(() => (queryInUrl(page) === 'app:billing -status:402' ? true : undefined));
    await eventually(async () => ((await lineCount(page)) === 6 ? true : undefined), 5000, 'the six others');

    await searchFor(page, '');
    await page.fill('[data-testid=add-column]', 'status');
    await page.press('[data-testid=add-column]', 'Enter');
    await eventually(async () => ((await lineCount(page)) === 40 ? true : undefined));
    const statusOf = async (text: string) => page.locator('[data-testid=line]', { hasText: text }).locator('[data-column=status]').innerText();
    assert.equal(await statusOf('GET /cart/3 '), '502', 'an nginx line in the status column');
    assert.equal(await statusOf('charge 3'), '402', 'a logfmt line in the status column');
    assert.equal(await statusOf('charge 4'), '200');
    await page.getByRole('button', { name: 'Remove column status' }).click();
  });

  test('the sidebar lists the search’s fields with exact top values and stats; a value filters for or out', async () => {
    await searchFor(page, '');
    const status = await openField(page, 'status');
    await eventually(async () => ((await status.locator('[data-testid=field-value]').count()) === 4 ? true : undefined));
    const values = await status.locator('[data-testid=field-value]').evaluateAll((items) => items.map((item) => item.getAttribute('data-value')));
    assert.deepEqual(values, ['200', '404', '402', '502']);
    const counts = await status.locator('[data-testid=field-value-lines]').evaluateAll((items) => items.map((item) => item.getAttribute('title')));
    assert.deepEqual(counts, ['27 lines', '6 lines', '4 lines', '3 lines']);
    assert.equal(await status.locator('[data-testid=field-stats] [data-stat=max]').innerText(), '502');
    assert.equal(await status.locator('[data-testid=field-stats] [data-stat=min]').innerText(), '200');
    // "Chart this" on a number opens its chart over the search: p95 of status, one series.
    await status.locator('[data-testid=chart-field]').click();
    const chart = page.locator('[data-testid=chart-this][data-field=status]');
    await eventually(async () => ((await chart.locator('[data-testid=chart-series]').count()) === 1 ? true : undefined));
    assert.match(await chart.locator('h3').innerText(), /Chart status/);
    await chart.getByRole('button', { name: 'Close the chart' }).click();
    assert.equal(await page.locator('[data-testid=chart-this]').count(), 0, 'the chart closes');
    const app = await openField(page, 'app');
    assert.equal(await app.locator('[data-testid=field-stats]').count(), 0, 'text has no stats');

    await status.locator('[data-testid=field-value][data-value="404"] .field-top-value').click();
    await eventually(() => (queryInUrl(page) === 'status:404' ? true : undefined));
    await eventually(async () => ((await lineCount(page)) === 6 ? true : undefined));
    // The sidebar follows the search: only 404s now.
    const narrowed = await openField(page, 'status');
    await eventually(async () => ((await narrowed.locator('[data-testid=field-value]').count()) === 1 ? true : undefined));
    // Filtering 404 out replaces the filter for it, rather than contradicting it (status:404 -status:404).
    await narrowed.locator('[data-testid=field-value-out]').click();
    await eventually(() => (queryInUrl(page) === '-status:404' ? true : undefined));
    const others = await openField(page, 'status');
    await eventually(async () => {
      const shown = await others.locator('[data-testid=field-value]').evaluateAll((items) => items.map((item) => item.getAttribute('data-value')));
      return shown.join() === '200,402,502' ? true : undefined;
    }, 10_000, 'every status but 404');

    await searchFor(page, '');
    await page.fill('[data-testid=find-field]', 'dur');
    await eventually(async () => {
      const names = await page.locator('[data-testid=fields-sidebar] [data-testid=field-entry]').evaluateAll((items) => items.map((item) => item.getAttribute('data-field')));
      return names.join() === 'duration_ms' ? true : undefined;
    });
    // The header counts the one field listed, of all of them.
    const entries = page.locator('[data-testid=fields-sidebar] [data-testid=field-entry]');
    const header = (await page.locator('[data-testid=field-count]').textContent()) ?? '';
    assert.match(header, /^1 of \d+$/);
    await page.fill('[data-testid=find-field]', '');
    await eventually(async () => ((await entries.count()) > 1 ? true : undefined));
    assert.equal(await page.locator('[data-testid=field-count]').textContent(), String(await entries.count()));
    assert.equal(header, `1 of ${await entries.count()}`);
    assert.deepEqual(report.violations, []);
    assert.deepEqual(report.pageErrors, []);
  });

  test("a scoped member's sidebar holds only the lines of their scope", async () => {
    const group = await request(`${server.url}/v1/config/groups`, {
      method: 'POST',
      headers: { servicekey: server.org.serviceKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'billing only', access_scopes: 'app:billing' }),
    });
    assert.equal(group.status, 200, group.text);
    const member = await server.signInAs('scoped@example.com', 'member', { groups: [group.json.id] });
    const scoped = await (await reportingContext(browser, report.violations, { viewport: { width: 1400, height: 900 } })).newPage();
    await signInWithPassword(server, scoped, member.email, member.password);
    await scoped.waitForSelector('[data-testid=line]');
    const app = await openField(scoped, 'app');
    await eventually(async () => ((await app.locator('[data-testid=field-value]').count()) === 1 ? true : undefined));
    assert.equal(await app.locator('[data-testid=field-value]').getAttribute('data-value'), 'billing');
    const status = await openField(scoped, 'status');
    const values = await status.locator('[data-testid=field-value]').evaluateAll((items) => items.map((item) => item.getAttribute('data-value')));
    assert.deepEqual(values, ['200', '402'], 'no nginx status reaches the member');
    assert.equal(await scoped.locator('[data-testid=fields-sidebar] [data-testid=field-entry][data-field=path]').count(), 0, "nginx's fields are not named");
    await scoped.close();
  });
});
