/**
 * The viewer laid out as a product, end to end in Chromium against a real server: a navigation of
 * Search, Boards and Settings; every page at its own address, which a reload opens again; the
 * browser's back and forward; a search toolbar that fits one row at 1,280 px; and the admins'
 * pages neither offered to nor opened for a member.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserMissing } from '../testing/browser.js';
import { type MemberSession, type TestServer, eventually, startTestServer } from '../testing/harness.js';
import { ingestLines, launchChromium, recordedPages, signIn, signInWithPassword } from '../testing/viewer-e2e.js';

let server: TestServer;
let browser: Browser;
let member: MemberSession;

const pages = recordedPages({ width: 1280, height: 800 });
const newPage = () => pages.open(browser);

const path = (page: Page) => new URL(page.url()).pathname;

/** Each address and what shows there: the page's own element and the navigation item marked current. */
const PAGES = [
  { address: '/boards', shows: 'boards-page', nav: 'boards' },
  { address: '/settings/members', shows: 'people-page', nav: 'settings' },
  { address: '/settings/keys', shows: 'keys-page', nav: 'settings' },
  { address: '/settings/parsing', shows: 'parsers-page', nav: 'settings' },
  { address: '/settings/exclusions', shows: 'exclusions-page', nav: 'settings' },
  { address: '/settings/archive', shows: 'archive-page', nav: 'settings' },
  { address: '/settings/usage', shows: 'usage-page', nav: 'settings' },
  { address: '/settings/audit', shows: 'audit-page', nav: 'settings' },
];

describe('the navigation and the pages at their addresses (Chromium)', { skip: browserMissing() }, () => {
  let page: Page;
  before(async () => {
    server = await startTestServer();
    const now = Date.now();
    await ingestLines(server, Array.from({ length: 6 }, (_, i) => ({ line: `alpha request ${i} took ${i * 10}ms`, app: i % 2 ? 'api' : 'web', level: i === 0 ? 'error' : 'info', timestamp: now - 60_000 + i * 1000 })));
    member = await server.signInAs('mo@example.com', 'member');
    browser = await launchChromium();
    page = await newPage();
    await signIn(server, page, server.org.serviceKey);
    await page.waitForSelector('[data-testid=line]');
  });
  after(async () => {
    await pages.close();
    await browser?.close();
    await server?.close();
  });

  test('the search toolbar is one row at 1,280 px, holding only the search, the range, live tail, export and Add to board', async () => {
    await toolbarIsOneRow(page);
    // A custom range adds its summary to the toolbar; it still fits.
    const now = Date.now();
    await page.goto(`${server.url}/?q=alpha&from=${now - 3_600_000}&to=${now}`);
    await page.waitForSelector('[data-testid=range-summary]');
    await toolbarIsOneRow(page);
  });

  test("the Add column box shows its whole placeholder, and the lines' toolbar stays one row at 1,280 px", async () => {
    await page.goto(`${server.url}/`);
    await page.waitForSelector('[data-testid=line]');
    // Written as a string: this file is compiled without the DOM's types.
    const fit = (await page.evaluate(`(() => {
      const field = document.querySelector('[data-testid=add-column]');
      const style = getComputedStyle(field);
      const measure = document.createElement('canvas').getContext('2d');
      measure.font = style.font;
      return { placeholder: field.placeholder, width: measure.measureText(field.placeholder).width, room: field.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) };
    })()`)) as { placeholder: string; width: number; room: number };
    assert.ok(fit.width <= fit.room, `"${fit.placeholder}" is ${fit.width} px wide in ${fit.room} px`);
    const tops = await page.locator('[data-testid=list-toolbar]').evaluate((bar) => [...bar.children].map((child) => child.getBoundingClientRect().top));
    assert.ok(tops.every((top) => Math.abs(top - tops[0]) <= 4), `one row: tops ${tops}`);
  });

  async function toolbarIsOneRow(page: Page) {
    const toolbar = page.locator('[data-testid=search-toolbar]');
    const boxes = await toolbar.evaluate((bar) => ({
      children: [...bar.children].map((child) => {
        const box = child.getBoundingClientRect();
        return { top: box.top, bottom: box.bottom, right: box.right, text: (child as unknown as { innerText: string }).innerText };
      }),
      bar: { height: bar.getBoundingClientRect().height },
      overflows: bar.scrollWidth > bar.clientWidth,
    }));
    assert.equal(boxes.overflows, false, 'nothing runs past the toolbar');
    const tops = new Set(boxes.children.map((child) => Math.round(child.top)));
    assert.ok(boxes.children.every((child) => Math.abs(child.top - boxes.children[0].top) <= 4), `one row: tops ${[...tops]}`);
    assert.ok(boxes.bar.height < 48, `one row high (${boxes.bar.height} px)`);
    assert.ok(boxes.children.every((child) => child.right <= 1280), 'within the window');
    const texts = boxes.children.map((child) => child.text).join(' | ');
    for (const gone of ['Usage', 'Exclusions', 'Parsing', 'Members', 'Audit', 'Sign out']) assert.ok(!texts.includes(gone), `${gone} is not in the search toolbar: ${texts}`);
    assert.match(texts, /Add to board/);
    // The navigation bar above it is one row too.
    assert.ok((await page.locator('.shell-bar').boundingBox())!.height < 48);
    assert.equal(await page.locator('[data-testid=nav-search]').getAttribute('aria-current'), 'page');
  }

  test('each page opens at its address, after a reload too, with its navigation item marked', async () => {
    for (const { address, shows, nav } of PAGES) {
      await page.goto(`${server.url}${address}`);
      await page.waitForSelector(`[data-testid=${shows}]`);
      await page.reload();
      await page.waitForSelector(`[data-testid=${shows}]`);
      assert.equal(path(page), address);
      assert.equal(await page.locator(`[data-testid=nav-${nav}]`).getAttribute('aria-current'), 'page', address);
      if (nav === 'settings') assert.equal(await page.locator(`[data-testid=settings-${address.split('/')[2]}]`).getAttribute('aria-current'), 'page', address);
    }
    // The search keeps its state in the query string, as before.
    await page.goto(`${server.url}/?q=alpha&apps=api&range=24h`);
    await page.waitForSelector('[data-testid=line]');
    await page.reload();
    await page.waitForSelector('[data-testid=line]');
    assert.equal(await page.inputValue('[data-testid=query]'), 'alpha');
    assert.equal(await page.locator('[data-testid=line]').count(), 3, 'the api lines only');
    assert.equal(await page.inputValue('[data-testid=range]'), '24h');
    // An address with no page says so, and links back to the search.
    await page.goto(`${server.url}/settings/nothing`);
    await page.waitForSelector('[data-testid=not-found]');
  });

  test('back and forward move between the pages, and the search comes back as it was left', async () => {
    await page.goto(`${server.url}/?q=alpha&range=24h`);
    await page.waitForSelector('[data-testid=line]');
    await page.click('[data-testid=nav-boards]');
    await page.waitForSelector('[data-testid=boards-page]');
    assert.equal(path(page), '/boards');
    await page.click('[data-testid=nav-settings]');
    // Settings alone opens its first page in place, so Back does not land on the bare address.
    await page.waitForSelector('[data-testid=people-page]');
    assert.equal(path(page), '/settings/members');
    await page.click('[data-testid=settings-usage]');
    await page.waitForSelector('[data-testid=usage-page]');

    await page.goBack();
    await page.waitForSelector('[data-testid=people-page]');
    assert.equal(path(page), '/settings/members');
    await page.goBack();
    await page.waitForSelector('[data-testid=boards-page]');
    await page.goBack();
    await page.waitForSelector('[data-testid=line]');
    assert.equal(path(page), '/');
    assert.equal(await page.inputValue('[data-testid=query]'), 'alpha');
    await page.goForward();
    await page.waitForSelector('[data-testid=boards-page]');
    // The navigation's Search link goes back to the search as it was left.
    assert.equal(await page.locator('[data-testid=nav-search]').getAttribute('href'), '/?q=alpha&range=24h');
    await page.click('[data-testid=nav-search]');
    await page.waitForSelector('[data-testid=line]');
    assert.equal(await page.inputValue('[data-testid=query]'), 'alpha');
  });

  test('the Search link follows each change of the search: on the search page, and after Back and Forward', async () => {
    const searchLinkIs = (address: string) => page.waitForSelector(`[data-testid=nav-search][href=${JSON.stringify(address)}]`, { timeout: 5_000 });
    const runSearch = async (query: string) => {
      await page.fill('[data-testid=query]', query);
      await page.press('[data-testid=query]', 'Enter');
      await page.waitForURL((url) => url.pathname === '/' && url.searchParams.get('q') === query);
      return `/${new URL(page.url()).search}`;
    };
    await page.goto(`${server.url}/?q=alpha&range=24h`);
    await page.waitForSelector('[data-testid=line]');
    const request = await runSearch('request');
    await searchLinkIs(request);
    // On the search page the link is the search shown: a click changes nothing, the address least of all.
    await page.click('[data-testid=nav-search]');
    assert.equal(`/${new URL(page.url()).search}`, request);
    assert.equal(await page.inputValue('[data-testid=query]'), 'request');

    await page.click('[data-testid=nav-boards]');
    await page.waitForSelector('[data-testid=boards-page]');
    await searchLinkIs(request);
    await page.click('[data-testid=nav-search]');
    await page.waitForSelector('[data-testid=line]');
    assert.equal(await page.inputValue('[data-testid=query]'), 'request');
    const took = await runSearch('took');
    await searchLinkIs(took);
    // Back to the earlier search, then out of the search page: the search last left is `request`.
    await page.goBack();
    await page.waitForURL((url) => url.searchParams.get('q') === 'request');
    await searchLinkIs(request);
    await page.goBack();
    await page.waitForSelector('[data-testid=boards-page]');
    await searchLinkIs(request);
    await page.goForward();
    await page.goForward();
    await page.waitForURL((url) => url.searchParams.get('q') === 'took');
    await searchLinkIs(took);
    await page.click('[data-testid=nav-settings]');
    await page.waitForSelector('[data-testid=people-page]');
    await searchLinkIs(took);
    await page.click('[data-testid=nav-search]');
    await page.waitForSelector('[data-testid=line]');
    assert.equal(await page.inputValue('[data-testid=query]'), 'took');
    // The brand links to a new search: followed from the search page itself, the page follows it.
    await page.click('.shell-bar a.brand');
    await page.waitForURL((url) => url.pathname === '/' && url.search === '');
    await eventually(async () => ((await page.inputValue('[data-testid=query]')) === '' ? true : undefined));
  });

  test("a member is not offered the admins' pages, and opening one by its address is refused", async () => {
    const theirs = await newPage();
    await signInWithPassword(server, theirs, member.email, member.password);
    await theirs.waitForSelector('[data-testid=line]');
    await theirs.click('[data-testid=nav-settings]');
    // A member's first settings page is parsing: members and keys are the admins'.
    await theirs.waitForSelector('[data-testid=parsers-page]');
    assert.equal(path(theirs), '/settings/parsing');
    const offered = await theirs.locator('.settings-nav a').allInnerTexts();
    assert.deepEqual(offered, ['Parsing', 'Exclusions', 'Usage']);
    for (const section of ['members', 'keys', 'archive', 'audit']) {
      await theirs.goto(`${server.url}/settings/${section}`);
      await theirs.waitForSelector('[data-testid=settings-refused]');
      assert.equal(await theirs.locator('[data-testid=people-page], [data-testid=keys-page], [data-testid=archive-page], [data-testid=audit-page]').count(), 0, section);
    }
  });

  test('an admin creates a key on the keys page, sees it once, and revokes it', async () => {
    await page.goto(`${server.url}/settings/keys`);
    await page.waitForSelector('[data-testid=keys-list]');
    const before = await page.locator('[data-testid=key-row]').count();
    await page.selectOption('[data-testid=key-type]', 'ingestion');
    await page.fill('[data-testid=key-name]', 'edge servers');
    await page.click('[data-testid=create-key]');
    const created = await page.locator('[data-testid=created-key] code').innerText();
    assert.match(created, /^[0-9a-f]{16,}$/i, 'the key itself, shown once');
    const row = page.locator('[data-testid=key-row]', { hasText: 'edge servers' });
    await row.waitFor();
    assert.equal(await page.locator('[data-testid=key-row]').count(), before + 1);
    assert.ok(!(await page.locator('[data-testid=keys-list]').innerText()).includes(created), 'the list never shows a key');
    await row.locator('[data-testid=revoke-key]').click();
    await row.locator('[data-testid=confirm-revoke]').click();
    await row.waitFor({ state: 'detached' });
    assert.equal(await page.locator('[data-testid=key-row]').count(), before);
  });

  test('the archive page says archiving is not configured', async () => {
    await page.goto(`${server.url}/settings/archive`);
    const config = page.locator('[data-testid=archive-config]');
    await config.waitFor();
    assert.equal(await config.getAttribute('data-configured'), 'false');
    assert.equal(await page.locator('[data-testid=edit-archive]').innerText(), 'Set up archiving');
  });

  test('the Content-Security-Policy blocked nothing in these tests, and the page threw nothing', () => {
    assert.deepEqual(pages.cspViolations, []);
    assert.deepEqual(pages.pageErrors, []);
  });
});
