/**
 * Boards in the viewer, end to end in Chromium against a real server: a board is created, a graph
 * of errors per hour by app is added and drawn with its series in the legend and a tooltip; a drag
 * on the graph zooms the board's range (and Back undoes it); a search is added to a board from the
 * search page; a readonly member sees the board without edit controls; a scoped member sees only
 * the series from inside their scope.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserMissing } from '../testing/browser.js';
import { type MemberSession, type TestServer, eventually, request, startTestServer } from '../testing/harness.js';
import { ingestLines, launchChromium, recordedPages, signIn, signInWithPassword } from '../testing/viewer-e2e.js';

const HOUR = 3_600_000;
let server: TestServer;
let browser: Browser;
let reader: MemberSession;
let scoped: MemberSession;
let boardId = '';

const pages = recordedPages({ width: 1280, height: 900 });
const newPage = () => pages.open(browser);

const withKey = (method: string, path: string, body?: unknown) =>
  request(`${server.url}${path}`, { method, headers: { servicekey: server.org.serviceKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });

/** The board's range as the address holds it. */
const rangeOf = (page: Page) => Object.fromEntries(new URL(page.url()).searchParams);

describe('boards in the viewer (Chromium)', { skip: browserMissing() }, () => {
  let page: Page;
  before(async () => {
    server = await startTestServer();
    const now = Date.now();
    // Errors over the last hours, each in the middle of an hour (so no bucket edge splits them): api in three hours, web in one, worker never (its lines are info).
    const errors = [
      { app: 'api', hoursAgo: 1, count: 2 },
      { app: 'api', hoursAgo: 3, count: 3 },
      { app: 'api', hoursAgo: 5, count: 1 },
      { app: 'web', hoursAgo: 3, count: 4 },
    ];
    await ingestLines(
      server,
      errors.flatMap(({ app, hoursAgo, count }) => Array.from({ length: count }, (_, i) => ({ line: `request failed ${i}`, app, level: 'error', timestamp: now - hoursAgo * HOUR - HOUR / 2 + i * 1000 }))),
    );
    await ingestLines(server, Array.from({ length: 5 }, (_, i) => ({ line: `job done ${i}`, app: 'worker', level: 'info', timestamp: now - 2 * HOUR + i * 1000 })));
    const group = await withKey('POST', '/v1/config/groups', { name: 'web team', access_scopes: 'app:web' });
    assert.equal(group.status, 200, group.text);
    reader = await server.signInAs('rita@example.com', 'readonly');
    scoped = await server.signInAs('sam@example.com', 'member', { groups: [group.json.id] });
    browser = await launchChromium();
    page = await newPage();
    await signIn(server, page, server.org.serviceKey);
    await page.waitForSelector('[data-testid=search-toolbar]');
  });
  after(async () => {
    await pages.close();
    await browser?.close();
    await server?.close();
  });

  test('a board is created in a category, and opens at its own address', async () => {
    await page.click('[data-testid=nav-boards]');
    await page.waitForSelector('[data-testid=boards-page]');
    await page.fill('[data-testid=new-board-name]', 'Operations');
    await page.fill('[data-testid=new-board-category]', 'Team');
    await page.click('[data-testid=create-board]');
    await page.waitForSelector('[data-testid=board-page]');
    boardId = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]);
    // The page shows "…" until the board has loaded (seen once on a busy CI machine): wait for the name.
    await page.locator('[data-testid=board-name]', { hasText: 'Operations' }).waitFor();
    assert.equal(await page.locator('[data-testid=board-name]').innerText(), 'Operations');
    const saved = (await withKey('GET', `/v1/config/board/${boardId}`)).json;
    assert.deepEqual({ name: saved.name, category: saved.category, graphs: saved.graphs }, { name: 'Operations', category: 'Team', graphs: [] });
  });

  test('a graph of errors per hour by app shows each app with errors in its legend, and a tooltip', async () => {
    await page.click('[data-testid=add-graph]');
    await page.waitForSelector('[data-testid=graph-editor]');
    assert.equal(await page.locator('[data-testid=graph-problem]').count(), 0, 'no problem in red before anything is typed');
    // Trying to save without a title says what is missing.
    await page.click('[data-testid=save-graph]');
    assert.equal(await page.locator('[data-testid=graph-problem]').textContent(), 'Give the graph a title.');
    await page.fill('[data-testid=graph-title]', 'Errors by app');
    await page.fill('[data-testid=graph-query]', 'level:error');
    await page.fill('[data-testid=graph-breakdown]', 'app');
    // The editor's preview (POST /v1/viewer/chart) already shows the series.
    const preview = page.locator('[data-testid=graph-preview] [data-testid=legend-item]');
    await eventually(async () => ((await preview.count()) === 2 ? true : undefined), 10_000, 'the preview');
    await page.click('[data-testid=save-graph]');
    await page.waitForSelector('[data-testid=graph-editor]', { state: 'detached' });

    const graph = page.locator('[data-testid=graph]', { hasText: 'Errors by app' });
    await graph.locator('[data-testid=line-chart]').waitFor();
    const legend = await graph.locator('[data-testid=legend-item]').evaluateAll((items) => items.map((item) => item.getAttribute('data-series')));
    assert.deepEqual(legend, ['api', 'web'], 'the apps with errors, most lines first; not worker');

    // The legend is what the data API answers for the same range.
    const saved = (await withKey('GET', `/v1/config/board/${boardId}`)).json;
    assert.deepEqual(saved.graphs[0].measure, { type: 'count' });
    assert.deepEqual(saved.graphs[0].breakdown, { field: 'app', limit: 5 });
    const now = Date.now();
    const data = (await withKey('GET', `/v1/board/${boardId}/graph/${saved.graphs[0].graphId}/data?from=${now - 24 * HOUR}&to=${now}&buckets=24`)).json;
    assert.equal(data.interval >= HOUR && data.interval < HOUR + 1000, true, `hourly buckets (${data.interval})`);
    assert.deepEqual(data.series.map((series: { name: string }) => series.name), legend);

    // Hovering the bucket that holds web's four errors shows both apps' counts there.
    const webPoints: Array<[number, number]> = data.series[1].points;
    const index = webPoints.findIndex(([, value]) => value === 4);
    assert.ok(index >= 0, 'the hour of the web errors');
    const svg = graph.locator('[data-testid=line-chart]');
    const box = (await svg.boundingBox())!;
    const slot = (box.width - 56 - 16) / webPoints.length;
    await page.mouse.move(box.x + 56 + (index + 0.5) * slot, box.y + 60);
    const tooltip = graph.locator('[data-testid=chart-tooltip]');
    await tooltip.waitFor();
    assert.match(await tooltip.locator('[data-series=web]').innerText(), /web\s*4/);
    assert.match(await tooltip.locator('[data-series=api]').innerText(), /api\s*3/);
  });

  test("a drag across a graph sets the board's range, and Back returns to the range before", async () => {
    const svg = page.locator('[data-testid=graph] [data-testid=line-chart]').first();
    const box = (await svg.boundingBox())!;
    const slot = (box.width - 56 - 16) / 24;
    assert.deepEqual(rangeOf(page), {}, 'the default range: the last day');
    await page.mouse.move(box.x + 56 + 2.5 * slot, box.y + 60);
    await page.mouse.down();
    await page.mouse.move(box.x + 56 + 6.5 * slot, box.y + 60, { steps: 5 });
    await page.mouse.up();
    await eventually(async () => (rangeOf(page).from ? true : undefined), 5000, 'the zoomed range in the address');
    const { from, to } = rangeOf(page);
    const span = Number(to) - Number(from) + 1;
    assert.ok(Math.abs(span - 5 * HOUR) < 5000, `five hourly buckets (${span} ms)`);
    assert.equal(await page.inputValue('[data-testid=range]'), 'custom');
    // Every graph of the board follows the range.
    await eventually(async () => ((await page.locator('[data-testid=graph][data-loading=false]').count()) === 1 ? true : undefined));

    await page.goBack();
    await eventually(async () => (rangeOf(page).from === undefined ? true : undefined), 5000, 'back to the last day');
    assert.equal(await page.inputValue('[data-testid=range]'), '24h');
    // A reload keeps a range in the address.
    await page.goForward();
    await page.reload();
    await page.waitForSelector('[data-testid=line-chart]');
    assert.equal(await page.inputValue('[data-testid=range]'), 'custom');
    assert.equal(rangeOf(page).from, from);
  });

  test("every time label stays inside the graph, one on the range's last moment too", async () => {
    // Four hours ending on the hour tick hourly, so the last tick is at the plot's right edge, where a centred label was cut ("09:00 PI").
    const end = Math.floor(Date.now() / HOUR) * HOUR;
    await page.goto(`${server.url}/boards/${encodeURIComponent(boardId)}?from=${end - 4 * HOUR}&to=${end}`);
    const svg = page.locator('[data-testid=graph] [data-testid=line-chart]').first();
    await svg.waitFor();
    await eventually(async () => ((await page.locator('[data-testid=graph][data-loading=false]').count()) === 1 ? true : undefined));
    const chart = (await svg.boundingBox())!;
    const ticks = await svg.locator('[data-testid=time-tick]').evaluateAll((texts) =>
      texts.map((text) => ({ label: text.textContent, left: text.getBoundingClientRect().left, right: text.getBoundingClientRect().right })),
    );
    assert.ok(ticks.length >= 2, JSON.stringify(ticks));
    const lastTick = await svg.locator('line.tick').last().evaluate((line) => line.getBoundingClientRect().left);
    assert.ok(lastTick > chart.x + chart.width - 20, `a tick at the right edge (${lastTick}, the graph ending at ${chart.x + chart.width})`);
    for (const tick of ticks) {
      assert.ok(tick.left >= chart.x - 0.5 && tick.right <= chart.x + chart.width + 0.5, `"${tick.label}" at ${tick.left}..${tick.right}, the graph at ${chart.x}..${chart.x + chart.width}`);
    }
  });

  test('the search page adds its search to the board as a graph', async () => {
    await page.goto(`${server.url}/?q=${encodeURIComponent('job done')}&range=24h&apps=worker`);
    await page.waitForSelector('[data-testid=line]');
    await page.click('[data-testid=add-to-board-open]');
    await page.waitForSelector('[data-testid=add-to-board]');
    await page.selectOption('[data-testid=target-board]', boardId);
    await page.fill('[data-testid=add-to-board] [data-testid=graph-title]', 'Jobs done');
    await page.click('[data-testid=save-to-board]');
    await page.waitForSelector('[data-testid=added-to-board]');
    const graphs = (await withKey('GET', `/v1/config/board/${boardId}`)).json.graphs;
    assert.deepEqual(
      graphs.map((graph: { title: string; query: string }) => [graph.title, graph.query]),
      [
        ['Errors by app', 'level:error'],
        ['Jobs done', 'job done'],
      ],
    );
    await page.click('[data-testid=added-to-board] a');
    await page.waitForSelector('[data-testid=board-page]');
    await eventually(async () => ((await page.locator('[data-testid=graph]').count()) === 2 ? true : undefined));
    const jobs = page.locator('[data-testid=graph]', { hasText: 'Jobs done' });
    await jobs.locator('[data-testid=line-chart]').waitFor();
    assert.deepEqual(await jobs.locator('[data-testid=legend-item]').allInnerTexts(), ['Jobs done'], 'one series, named after the graph');
    // The subtitle holds the whole search: its query and its menus.
    assert.equal(await jobs.locator('[data-testid=graph-about]').textContent(), 'lines · job done · apps: worker');
    assert.equal(await jobs.locator('[data-testid=chart-empty]').count(), 0);
  });

  test('a readonly member sees the boards and their graphs, but no control to change them', async () => {
    const theirs = await newPage();
    await signInWithPassword(server, theirs, reader.email, reader.password);
    await theirs.waitForSelector('[data-testid=search-toolbar]');
    assert.equal(await theirs.locator('[data-testid=add-to-board-open]').count(), 0, 'no Add to board');
    await theirs.click('[data-testid=nav-boards]');
    await theirs.waitForSelector('[data-testid=board-row]');
    assert.equal(await theirs.locator('[data-testid=board-category] h3').textContent(), 'Team');
    assert.equal(await theirs.locator('[data-testid=create-board], [data-testid=rename-board], [data-testid=delete-board]').count(), 0);
    await theirs.click('[data-testid=board-link]');
    await theirs.waitForSelector('[data-testid=line-chart]');
    assert.equal(await theirs.locator('[data-testid=graph]').count(), 2);
    assert.equal(await theirs.locator('[data-testid=add-graph], [data-testid=edit-graph], [data-testid=delete-graph]').count(), 0);
  });

  test('a scoped member sees only the series from lines inside their scope', async () => {
    const theirs = await newPage();
    await signInWithPassword(server, theirs, scoped.email, scoped.password);
    await theirs.waitForSelector('[data-testid=search-toolbar]');
    await theirs.goto(`${server.url}/boards/${encodeURIComponent(boardId)}`);
    const graph = theirs.locator('[data-testid=graph]', { hasText: 'Errors by app' });
    await graph.locator('[data-testid=line-chart]').waitFor();
    assert.deepEqual(await graph.locator('[data-testid=legend-item]').allInnerTexts(), ['web'], 'not api: outside the scope');
    const jobs = theirs.locator('[data-testid=graph]', { hasText: 'Jobs done' });
    await jobs.locator('[data-testid=line-chart]').waitFor();
    const width = (await jobs.locator('[data-testid=line-chart]').boundingBox())!;
    // The worker's jobs are outside the scope: every bucket of the one series is 0, so the tooltip says 0 wherever it is.
    await theirs.mouse.move(width.x + width.width / 2, width.y + 60);
    assert.match(await jobs.locator('[data-testid=chart-tooltip] [data-testid=tooltip-row]').innerText(), /Jobs done\s*0$/);
    // Empty axes are said in words, inside the scope; the graph with web's errors has lines to show.
    assert.equal(await jobs.locator('[data-testid=chart-empty]').textContent(), 'No lines in this range');
    assert.equal(await graph.locator('[data-testid=chart-empty]').count(), 0);
  });

  test('the Content-Security-Policy blocked nothing in these tests, and the page threw nothing', () => {
    assert.deepEqual(pages.cspViolations, []);
    assert.deepEqual(pages.pageErrors, []);
  });
});
