/**
 * Issue 40's "Done when", walked in Chromium as a person would: a day of nginx, logfmt and JSON
 * lines, each parsed at ingest by the product's own format detection, is read in the fields
 * sidebar (the status codes' shares, the slowest path's p99), the Patterns tab (the top patterns,
 * and the one kind that is new) and a board made through the viewer (errors per hour by app, p95
 * response time). Every number the page shows is checked against what GET /v1/export gives for
 * the same search, counted here; then a member whose group sees two of the three apps reads the
 * same pages and gets only what their scope's lines give.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page, Response } from 'playwright-core';
import { browserMissing } from '../testing/browser.js';
import { type MemberSession, type TestServer, eventually, jsonLines, request, startTestServer } from '../testing/harness.js';
import { ingestLines, launchChromium, recordedPages, signIn, signInWithPassword } from '../testing/viewer-e2e.js';
import { seededRandom } from '../testing/seeded-random.js';

const HOUR = 3_600_000;
/** Whole seconds, so that a line's time and the CLF time in its text are the same moment. */
const NOW = Math.floor(Date.now() / 1000) * 1000;
/** The day the lines cover: 24 whole hours, so a board's 24 buckets are its hours. */
const DAY = { from: NOW - 24 * HOUR, to: NOW - 1 };
/** The last six hours: the Patterns tab's search, whose window before (the six hours before it) holds every old kind. */
const LATE = { from: NOW - 6 * HOUR, to: NOW - 1 };
/** The hours (of 24, from the day's start) in which the new kind of message comes: the last five. */
const NEW_KIND_FROM_HOUR = 19;
const ERRORS_QUERY = 'level:error OR status:>=500';
const SLOW_PATH = '/api/reports';
/** The apps the scoped member's group may read; billing (logfmt) is outside. */
const SCOPE_APPS = ['checkout', 'nginx'];

type ExportRecord = Record<string, any>;
interface Range {
  from: number;
  to: number;
}

// ---- The day of lines: seeded, so every run sends the same lines relative to NOW. ----


function clfTime(ms: number): string {
  const date = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(date.getUTCDate())}/${date.toUTCString().split(' ')[2]}/${date.getUTCFullYear()}:${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`;
}

interface DayOfLines {
  nginx: Array<Record<string, unknown>>;
  billing: Array<Record<string, unknown>>;
  checkout: Array<Record<string, unknown>>;
}

/**
 * Each hour: nginx access lines over five paths (two of them slow, seconds rather than
 * milliseconds, with at most three significant digits so the sidebar shows them as they are),
 * logfmt lines from billing, JSON lines from checkout; a few errors in each app; and, in the
 * last five hours only, billing's retries, a kind of message never seen before.
 */
function dayOfLines(): DayOfLines {
  const random = seededRandom(40);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
  const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  /** A moment inside the hour, away from its edges, so no bucket edge or window edge splits a second. */
  const inHour = (hour: number) => DAY.from + hour * HOUR + 1000 * between(1, 3598);
  const fast = () => (between(1, 99) / 1000).toFixed(3);
  const day: DayOfLines = { nginx: [], billing: [], checkout: [] };
  const paths = [
    { path: '/', weight: 3, time: fast },
    { path: '/static/app.js', weight: 3, time: fast },
    { path: '/api/cart', weight: 3, time: fast },
    { path: '/api/search', weight: 2, time: () => (between(80, 299) / 100).toFixed(3) },
    { path: SLOW_PATH, weight: 1, time: () => (between(300, 999) / 100).toFixed(3) },
  ];
  const weighted = paths.flatMap((entry) => Array.from({ length: entry.weight }, () => entry));
  const customers = ['acme', 'globex', 'initech'];
  for (let hour = 0; hour < 24; hour++) {
    for (let i = 0; i < 30; i++) {
      const { path, time } = pick(weighted);
      const roll = random();
      const status = roll < 0.8 ? 200 : roll < 0.86 ? 304 : roll < 0.92 ? 404 : pick([500, 502, 503]);
      const at = inHour(hour);
      day.nginx.push({
        line: `10.0.${hour}.${between(1, 254)} - - [${clfTime(at)}] "GET ${path} HTTP/1.1" ${status} ${between(200, 9000)} "-" "${pick(['curl/8.5', 'Mozilla/5.0'])}" ${time()}`,
        app: 'nginx',
        timestamp: at,
      });
    }
    for (let i = 0; i < 12; i++) {
      day.billing.push({ line: `level=info event=charge_ok customer=${pick(customers)} amount=${between(100, 9999) / 100} response_time=${fast()}`, app: 'billing', timestamp: inHour(hour) });
    }
    for (let i = between(0, 3); i > 0; i--) {
      day.billing.push({ line: `level=error event=charge_failed customer=${pick(customers)} reason=card_declined response_time=${fast()}`, app: 'billing', timestamp: inHour(hour) });
    }
    if (hour >= NEW_KIND_FROM_HOUR) {
      for (let i = between(2, 4); i > 0; i--) {
        day.billing.push({ line: `level=warn event=card_retry_scheduled customer=${pick(customers)} attempt=${between(1, 3)} response_time=${fast()}`, app: 'billing', timestamp: inHour(hour) });
      }
    }
    for (let i = 0; i < 10; i++) {
      day.checkout.push({
        line: JSON.stringify({ level: 'info', message: 'order placed', order_id: between(10_000, 99_999), status: 201, response_time: Number(fast()) }),
        app: 'checkout',
        timestamp: inHour(hour),
      });
    }
    for (let i = between(0, 2); i > 0; i--) {
      day.checkout.push({
        line: JSON.stringify({ level: 'error', message: 'payment gateway timeout', status: 502, response_time: between(100, 999) / 100 }),
        app: 'checkout',
        timestamp: inHour(hour),
      });
    }
  }
  return day;
}

// ---- What export gives, counted here. ----

/** Reader's credentials: the owner's service key, or a member's session cookie. */
type Credentials = Record<string, string>;

async function exported(credentials: Credentials, range: Range, query = ''): Promise<ExportRecord[]> {
  const reply = await request(`${server.url}/v1/export?from=${range.from}&to=${range.to}&query=${encodeURIComponent(query)}`, { headers: credentials });
  assert.equal(reply.status, 200, reply.text);
  return jsonLines(reply.text);
}

/** A field's values with their lines, most lines first then by value: the sidebar's order. */
function topValues(records: ExportRecord[], read: (record: ExportRecord) => unknown): Array<{ value: string; lines: number }> {
  const counts = new Map<string, number>();
  for (const record of records) {
    const value = read(record);
    if (value !== undefined) counts.set(String(value), (counts.get(String(value)) ?? 0) + 1);
  }
  return [...counts].map(([value, lines]) => ({ value, lines })).sort((a, b) => b.lines - a.lines || (a.value < b.value ? -1 : 1));
}

/** Nearest rank, as docs/search.md defines the sidebar's percentiles: the smallest value that at least p of the values are at or below. */
function nearestRank(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];
}

/** A graph's percentile, as docs/boards.md defines it: the value at position ⌊p·n⌋ (from 0) of the n values sorted, the largest past the end. */
function graphQuantile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

interface Series {
  name: string;
  points: Array<[number, number | null]>;
}

/**
 * A graph broken down by app, as docs/boards.md defines its data: buckets of ⌈span / buckets⌉ ms
 * from `from`, one series for each app (the apps with the most lines first, ties by name; fewer
 * than the limit here, so no `other`), each bucket's value the measure of its lines.
 */
function seriesByApp(records: ExportRecord[], range: Range, buckets: number, measure: (lines: ExportRecord[]) => number | null): { interval: number; series: Series[] } {
  const interval = Math.ceil((range.to - range.from + 1) / buckets);
  const count = Math.ceil((range.to - range.from + 1) / interval);
  const apps = topValues(records, (record) => record._app).map(({ value }) => value);
  const series = apps.map((app) => {
    const byBucket = Array.from({ length: count }, () => [] as ExportRecord[]);
    for (const record of records) if (record._app === app) byBucket[Math.floor((record._ts - range.from) / interval)].push(record);
    return { name: app, points: byBucket.map((lines, index): [number, number | null] => [range.from + index * interval, measure(lines)]) };
  });
  return { interval, series };
}

const errorsPerHour = (records: ExportRecord[], range: Range, buckets: number) => seriesByApp(records, range, buckets, (lines) => lines.length);
const p95ResponseTime = (records: ExportRecord[], range: Range, buckets: number) =>
  seriesByApp(records, range, buckets, (lines) => {
    const values = lines.map((record) => record.response_time).filter((value): value is number => typeof value === 'number');
    return values.length ? graphQuantile(values, 0.95) : null;
  });

// ---- What Chromium shows. ----

let server: TestServer;
let browser: Browser;
let member: MemberSession;
let boardId = '';

const pages = recordedPages({ width: 1400, height: 900 });
const newPage = () => pages.open(browser);

/**
 * Waits until what `read` gets from the page equals `expected` (an answer may still be on its
 * way), and fails with the difference when it never does.
 */
async function settles<T>(read: () => Promise<T>, expected: T, what: string): Promise<void> {
  try {
    await eventually(async () => (JSON.stringify(await read()) === JSON.stringify(expected) ? true : undefined), 15_000, what);
  } catch {
    assert.deepEqual(await read(), expected, what);
  }
}

const queryInUrl = (page: Page) => new URL(page.url()).searchParams.get('q') ?? '';

/** The search page over a range, as a person opens it from a link, with its lines answered. */
async function openSearch(page: Page, range: Range, query = '') {
  await page.goto(`${server.url}/?${new URLSearchParams({ ...(query ? { q: query } : {}), from: String(range.from), to: String(range.to) })}`);
  await page.locator('main.results[data-answered=current]').waitFor();
}

/** A field's entry in the sidebar, opened. */
async function openField(page: Page, name: string) {
  const entry = page.locator(`[data-testid=fields-sidebar] [data-testid=field-entry][data-field="${name}"]`);
  await entry.waitFor();
  if ((await entry.getAttribute('open')) === null) await entry.locator('summary').click();
  return entry;
}

/** A field's lines and top values as the sidebar shows them: counts from their titles, shares as written. */
async function shownValues(page: Page, name: string) {
  const entry = await openField(page, name);
  const lines = await entry.locator('summary .count').getAttribute('title');
  const top = await entry.locator('[data-testid=field-value]').evaluateAll((items) =>
    items.map((item) => ({
      value: item.getAttribute('data-value'),
      lines: item.querySelector('[data-testid=field-value-lines]')!.getAttribute('title'),
      share: item.querySelector('[data-testid=field-value-lines]')!.textContent,
    })),
  );
  return { lines, top };
}

/** The share the sidebar writes for part of a whole: whole percents from 10 % up, one decimal below. */
function shareOf(part: number, whole: number): string {
  const percent = (part / whole) * 100;
  return `${percent >= 10 || Number.isInteger(percent) ? Math.round(percent) : percent.toFixed(1)}%`;
}

/** What the sidebar should show for a field, from export's lines. */
function expectedValues(records: ExportRecord[], read: (record: ExportRecord) => unknown, total: number) {
  const all = topValues(records, read);
  const withField = all.reduce((sum, value) => sum + value.lines, 0);
  return {
    lines: `${withField.toLocaleString('en')} of ${total.toLocaleString('en')} lines`,
    top: all.slice(0, 5).map(({ value, lines }) => ({ value, lines: `${lines.toLocaleString('en')} lines`, share: shareOf(lines, withField) })),
  };
}

/** A number field's stats as the sidebar writes them, but the average (written to three digits, so not comparable exactly). */
const shownStats = (page: Page, name: string) =>
  page
    .locator(`[data-testid=fields-sidebar] [data-testid=field-entry][data-field="${name}"] [data-testid=field-stats] dd:not([data-stat=avg])`)
    .evaluateAll((items) => Object.fromEntries(items.map((item) => [item.getAttribute('data-stat'), item.textContent])));

/** The Patterns tab's rows: template, count, whether marked new, and the query its Search button runs. */
async function shownPatterns(page: Page) {
  await page.locator('[data-testid=patterns-pane][data-loaded=current] [data-testid=pattern-row]').first().waitFor();
  return page.locator('[data-testid=pattern-row]').evaluateAll((rows) =>
    rows.map((row) => ({
      template: row.querySelector('[data-testid=pattern-template]')!.textContent ?? '',
      lines: Number((row.querySelector('[data-testid=pattern-count]')!.textContent ?? '').replace(/,/g, '')),
      isNew: row.querySelector('[data-testid=pattern-new]') !== null,
      query: (row.querySelector('.pattern-actions button')!.getAttribute('title') ?? '').replace(/^Search for /, ''),
    })),
  );
}

/** Opens the board over a range and waits for both graphs; answers the data each graph's request got, by graph id, and the legends drawn. */
async function openBoard(page: Page, range: Range) {
  const answers = new Map<string, { interval: number; series: Series[] }>();
  const collect = async (response: Response) => {
    const url = new URL(response.url());
    const match = /^\/v1\/board\/[^/]+\/graph\/([^/]+)\/data$/.exec(url.pathname);
    // Only the answers for this range: a graph of the page before may still be answered as it goes.
    if (!match || url.searchParams.get('from') !== String(range.from) || url.searchParams.get('to') !== String(range.to) || response.status() !== 200) return;
    answers.set(decodeURIComponent(match[1]), await response.json());
  };
  page.on('response', collect);
  await page.goto(`${server.url}/boards/${encodeURIComponent(boardId)}?from=${range.from}&to=${range.to}`);
  await eventually(async () => ((await page.locator('[data-testid=graph][data-loading=false] [data-testid=line-chart]').count()) === 2 ? true : undefined), 15_000, 'both graphs drawn');
  await eventually(() => (answers.size === 2 ? true : undefined), 5000, 'both graphs answered');
  page.off('response', collect);
  const legend = async (title: string) => {
    const graph = page.locator('[data-testid=graph]', { hasText: title });
    return {
      graphId: await graph.getAttribute('data-graph'),
      legend: await graph.locator('[data-testid=legend-item]').evaluateAll((items) => items.map((item) => item.getAttribute('data-series'))),
      lines: await graph.locator('[data-testid=chart-series]').evaluateAll((paths) => paths.map((path) => path.getAttribute('data-series'))),
    };
  };
  return { answers, errors: await legend('Errors per hour by app'), p95: await legend('p95 response time') };
}

const toData = ({ interval, series }: { interval: number; series: Series[] }) => ({ interval, series: series.map(({ name, points }) => ({ name, points })) });

async function graphData(credentials: Credentials, graphId: string, range: Range) {
  const reply = await request(`${server.url}/v1/board/${boardId}/graph/${graphId}/data?from=${range.from}&to=${range.to}&buckets=24`, { headers: credentials });
  assert.equal(reply.status, 200, reply.text);
  return reply.json;
}

describe("issue 40's done-when: a day of nginx, logfmt and JSON logs read in Chromium, by the owner and by a scoped member", { skip: browserMissing() }, () => {
  let owner: Page;
  let ownerKey: Credentials;
  let memberCookie: Credentials;
  let graphIds: { errors: string; p95: string };
  let signedInMember: Page | undefined;
  /** The scoped member's page, signed in with their e-mail and password once. */
  const memberPage = async () => {
    if (signedInMember) return signedInMember;
    signedInMember = await newPage();
    await signInWithPassword(server, signedInMember, member.email, member.password);
    await signedInMember.waitForSelector('[data-testid=search-toolbar]');
    return signedInMember;
  };

  before(async () => {
    server = await startTestServer();
    ownerKey = { servicekey: server.org.serviceKey };
    const day = dayOfLines();
    // Through the real ingest API, as each source's shipper would send them: the formats are found by the product's own detection.
    await ingestLines(server, day.nginx, 'edge-1');
    await ingestLines(server, day.billing, 'worker-1');
    await ingestLines(server, day.checkout, 'api-1');
    const group = await request(`${server.url}/v1/config/groups`, {
      method: 'POST',
      headers: { ...ownerKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'web and checkout', access_scopes: SCOPE_APPS.map((app) => `app:${app}`) }),
    });
    assert.equal(group.status, 200, group.text);
    member = await server.signInAs('scoped@example.com', 'member', { groups: [group.json.id] });
    memberCookie = member.headers();
    browser = await launchChromium();
    owner = await newPage();
    await signIn(server, owner, server.org.serviceKey);
    await owner.waitForSelector('[data-testid=search-toolbar]');
  });
  after(async () => {
    await pages.close();
    await browser?.close();
    await server?.close();
  });

  test('every line of the day was stored, each read in its format', async () => {
    const records = await exported(ownerKey, DAY);
    assert.deepEqual(topValues(records, (record) => `${record._app} ${record._logtype}`).map(({ value }) => value).sort(), ['billing logfmt', 'checkout json', 'nginx nginx']);
    const day = dayOfLines();
    assert.equal(records.length, day.nginx.length + day.billing.length + day.checkout.length);
    assert.ok(records.every((record) => typeof record.response_time === 'number'), 'every line has a numeric response_time');
  });

  test("the owner's sidebar shows the status codes' shares and the slow path's p99, as export counts them", async () => {
    await openSearch(owner, DAY);
    const day = await exported(ownerKey, DAY);
    await settles(() => shownValues(owner, 'status'), expectedValues(day, (record) => record._status, day.length), 'status: lines, top values and shares');

    // A person clicks the slow path among path's top values, and reads the response time of its lines.
    await (await openField(owner, 'path')).locator(`[data-testid=field-value][data-value="${SLOW_PATH}"] .field-top-value`).click();
    await eventually(() => (queryInUrl(owner) !== '' ? true : undefined), 5000, 'the path in the search');
    await owner.locator('main.results[data-answered=current]').waitFor();
    const slow = await exported(ownerKey, DAY, queryInUrl(owner));
    assert.ok(slow.length > 20 && slow.every((record) => record._path === SLOW_PATH), `the search ${queryInUrl(owner)} finds the slow path's lines (${slow.length})`);
    const times = slow.map((record) => record.response_time as number);
    await openField(owner, 'response_time');
    await settles(
      () => shownStats(owner, 'response_time'),
      // At most three significant digits each, so the sidebar writes every one as it is.
      {
        min: String(Math.min(...times)),
        max: String(Math.max(...times)),
        p50: String(nearestRank(times, 0.5)),
        p95: String(nearestRank(times, 0.95)),
        p99: String(nearestRank(times, 0.99)),
      },
      'response_time of the slow path',
    );
    assert.ok(nearestRank(times, 0.99) >= 3, 'seconds, not milliseconds: the slow path');
  });

  test("the owner's Patterns tab lists the top patterns by count, each count export's, and marks only the late kind new", async () => {
    await openSearch(owner, LATE);
    await owner.click('[data-testid=tab-patterns]');
    const rows = await shownPatterns(owner);
    assert.deepEqual(
      rows.map((row) => row.lines),
      rows.map((row) => row.lines).sort((a, b) => b - a),
      'sorted by count',
    );
    const late = await exported(ownerKey, LATE);
    assert.equal(rows.reduce((sum, row) => sum + row.lines, 0), late.length, 'every line of the search in one pattern');
    for (const row of rows) {
      assert.notEqual(row.query, '', row.template);
      assert.equal(row.lines, (await exported(ownerKey, LATE, row.query)).length, `${row.template}: its count is export's count of ${row.query}`);
    }
    assert.deepEqual(
      rows.filter((row) => row.isNew).map((row) => row.template),
      ['level=warn event=card_retry_scheduled customer=<*> attempt=<*> response_time=<*>'],
      'only the kind that came in the last five hours is new',
    );
    assert.ok(rows.some((row) => row.template.startsWith('level=error event=charge_failed')) && rows.some((row) => row.template.includes('"GET <*> HTTP/')), 'the old kinds are listed');
  });

  test('the owner makes a board through the viewer: errors per hour by app from a search, p95 response time in the graph editor', async () => {
    // From the search of errors, "Add to board" onto a new board.
    await openSearch(owner, DAY, ERRORS_QUERY);
    await owner.click('[data-testid=add-to-board-open]');
    await owner.waitForSelector('[data-testid=add-to-board]');
    await owner.selectOption('[data-testid=target-board]', '');
    await owner.fill('[data-testid=target-board-name]', 'A day of logs');
    await owner.fill('[data-testid=add-to-board] [data-testid=graph-title]', 'Errors per hour by app');
    await owner.fill('[data-testid=add-to-board] [data-testid=graph-breakdown]', 'app');
    await owner.click('[data-testid=save-to-board]');
    await owner.click('[data-testid=added-to-board] a');
    await owner.waitForSelector('[data-testid=board-page]');
    boardId = decodeURIComponent(new URL(owner.url()).pathname.split('/')[2]);

    // On the board, a second graph: p95 of the response time over every line, by app.
    await owner.click('[data-testid=add-graph]');
    await owner.fill('[data-testid=graph-editor] [data-testid=graph-title]', 'p95 response time');
    await owner.selectOption('[data-testid=graph-editor] [data-testid=graph-measure]', 'p95');
    await owner.fill('[data-testid=graph-editor] [data-testid=graph-field]', 'response_time');
    await owner.fill('[data-testid=graph-editor] [data-testid=graph-breakdown]', 'app');
    await eventually(async () => ((await owner.locator('[data-testid=graph-preview] [data-testid=legend-item]').count()) === 3 ? true : undefined), 10_000, 'the preview');
    await owner.click('[data-testid=save-graph]');
    await owner.waitForSelector('[data-testid=graph-editor]', { state: 'detached' });

    const board = (await request(`${server.url}/v1/config/board/${boardId}`, { headers: ownerKey })).json;
    assert.deepEqual(
      board.graphs.map(({ title, query, measure, breakdown }: Record<string, unknown>) => ({ title, query, measure, breakdown })),
      [
        { title: 'Errors per hour by app', query: ERRORS_QUERY, measure: { type: 'count' }, breakdown: { field: 'app', limit: 5 } },
        { title: 'p95 response time', query: '', measure: { type: 'p95', field: 'response_time' }, breakdown: { field: 'app', limit: 5 } },
      ],
    );
    graphIds = { errors: board.graphs[0].graphId, p95: board.graphs[1].graphId };
  });

  test("the owner's board draws each app's series, and its data is export's counts and p95s, hour by hour", async () => {
    const shown = await openBoard(owner, DAY);
    const errors = await exported(ownerKey, DAY, ERRORS_QUERY);
    const all = await exported(ownerKey, DAY);
    const expectedErrors = errorsPerHour(errors, DAY, 24);
    const expectedP95 = p95ResponseTime(all, DAY, 24);
    assert.equal(expectedErrors.interval, HOUR);
    assert.deepEqual(expectedErrors.series.map((series) => series.name).sort(), ['billing', 'checkout', 'nginx'], 'errors in every app');

    assert.deepEqual(shown.errors.legend, expectedErrors.series.map((series) => series.name), 'the errors legend');
    assert.deepEqual(shown.errors.lines, shown.errors.legend, 'a line drawn for each');
    assert.deepEqual(shown.p95.legend, expectedP95.series.map((series) => series.name), 'the p95 legend');
    assert.deepEqual(shown.p95.lines, shown.p95.legend);
    // What the page was answered, and what the data API answers for 24 buckets, are export's numbers.
    assert.deepEqual(toData(shown.answers.get(graphIds.errors)!), expectedErrors);
    assert.deepEqual(toData(shown.answers.get(graphIds.p95)!), expectedP95);
    assert.deepEqual(toData(await graphData(ownerKey, graphIds.errors, DAY)), expectedErrors);
    assert.deepEqual(toData(await graphData(ownerKey, graphIds.p95, DAY)), expectedP95);

    // Hovering the hour with the most errors shows each app's count there.
    const totals = expectedErrors.series[0].points.map((_, index) => expectedErrors.series.reduce((sum, series) => sum + (series.points[index][1] ?? 0), 0));
    const busiest = totals.indexOf(Math.max(...totals));
    const graph = owner.locator('[data-testid=graph]', { hasText: 'Errors per hour by app' });
    const box = (await graph.locator('[data-testid=line-chart]').boundingBox())!;
    // The chart's frame: 56 px of value axis on the left, 16 px of margin on the right (charts/LineChart.tsx).
    await owner.mouse.move(box.x + 56 + (busiest + 0.5) * ((box.width - 56 - 16) / 24), box.y + 60);
    const tooltip = graph.locator('[data-testid=chart-tooltip]');
    await tooltip.waitFor();
    for (const series of expectedErrors.series) {
      assert.match(await tooltip.locator(`[data-series="${series.name}"]`).innerText(), new RegExp(`^${series.name}\\s*${series.points[busiest][1]}$`));
    }
  });

  test("the scoped member's sidebar holds only their scope's lines, as their export counts them", async () => {
    const page = await memberPage();
    await openSearch(page, DAY);
    const day = await exported(memberCookie, DAY);
    assert.deepEqual(topValues(day, (record) => record._app).map(({ value }) => value).sort(), SCOPE_APPS, "the member's export holds their scope only");
    await settles(() => shownValues(page, 'app'), expectedValues(day, (record) => record._app, day.length), 'app: only the apps in scope');
    await settles(() => shownValues(page, 'status'), expectedValues(day, (record) => record._status, day.length), 'status: lines, top values and shares');
    assert.equal(await page.locator('[data-testid=fields-sidebar] [data-testid=field-entry][data-field=customer]').count(), 0, "billing's fields are not named");

    await (await openField(page, 'path')).locator(`[data-testid=field-value][data-value="${SLOW_PATH}"] .field-top-value`).click();
    await eventually(() => (queryInUrl(page) !== '' ? true : undefined), 5000, 'the path in the search');
    await page.locator('main.results[data-answered=current]').waitFor();
    const times = (await exported(memberCookie, DAY, queryInUrl(page))).map((record) => record.response_time as number);
    await openField(page, 'response_time');
    const read = async () => {
      const { p95, p99 } = await shownStats(page, 'response_time');
      return { p95, p99 };
    };
    await settles(read, { p95: String(nearestRank(times, 0.95)), p99: String(nearestRank(times, 0.99)) }, 'response_time of the slow path');
  });

  test("the scoped member's patterns come from their scope: export's counts, and none of billing's", async () => {
    const page = await memberPage();
    await openSearch(page, LATE);
    await page.click('[data-testid=tab-patterns]');
    const rows = await shownPatterns(page);
    assert.equal(rows.reduce((sum, row) => sum + row.lines, 0), (await exported(memberCookie, LATE)).length);
    for (const row of rows) assert.equal(row.lines, (await exported(memberCookie, LATE, row.query)).length, `${row.template}: its count is the member's export of ${row.query}`);
    assert.deepEqual(
      rows.filter((row) => row.template.includes('event=')).map((row) => row.template),
      [],
      "billing's patterns, the new one among them, are outside the scope",
    );
    assert.ok(rows.length >= 3, rows.map((row) => row.template).join('\n'));
    assert.deepEqual(rows.filter((row) => row.isNew), [], 'no kind inside the scope is new');
  });

  test("the scoped member's board shows only their apps' series, with their export's numbers", async () => {
    const page = await memberPage();
    const shown = await openBoard(page, DAY);
    const expectedErrors = errorsPerHour(await exported(memberCookie, DAY, ERRORS_QUERY), DAY, 24);
    const expectedP95 = p95ResponseTime(await exported(memberCookie, DAY), DAY, 24);
    assert.deepEqual(expectedErrors.series.map((series) => series.name).sort(), SCOPE_APPS);
    assert.deepEqual(shown.errors.legend, expectedErrors.series.map((series) => series.name), 'not billing: outside the scope');
    assert.deepEqual(shown.p95.legend, expectedP95.series.map((series) => series.name));
    assert.deepEqual(toData(shown.answers.get(graphIds.errors)!), expectedErrors);
    assert.deepEqual(toData(shown.answers.get(graphIds.p95)!), expectedP95);
    assert.deepEqual(toData(await graphData(memberCookie, graphIds.errors, DAY)), expectedErrors);
    assert.deepEqual(toData(await graphData(memberCookie, graphIds.p95, DAY)), expectedP95);
  });

  test('the Content-Security-Policy blocked nothing, and no page threw', () => {
    assert.deepEqual(pages.cspViolations, []);
    assert.deepEqual(pages.pageErrors, []);
  });
});
