/**
 * The viewer's part of the ingestion controls, in Chromium against a real server: the exclusion
 * rules page with the lines each rule excluded in the last day, and the banner while ingestion is
 * suspended.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserMissing } from '../testing/browser.js';
import { type TestServer, eventually, request, startTestServer } from '../testing/harness.js';
import { backToSearch, ingestLines, launchChromium, openSettings, signedInPage } from '../testing/viewer-e2e.js';

let server: TestServer;
let browser: Browser;
let page: Page;
const report = { violations: [] as string[], pageErrors: [] as string[] };

const call = (method: string, path: string, body?: unknown) =>
  request(`${server.url}${path}`, {
    method,
    headers: { servicekey: server.org.serviceKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe('ingestion controls in the viewer (Chromium)', { skip: browserMissing() }, () => {
  before(async () => {
    server = await startTestServer();
    browser = await launchChromium();
    await ingestLines(server, [{ line: 'a line to show', app: 'web' }]);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('the exclusions page lists the rules and how many lines each excluded in the last day', async () => {
    const noisy = (await call('POST', '/v1/config/ingestion/exclusions', { title: 'noisy health checks', query: 'healthz', active: true })).json;
    const idle = (await call('POST', '/v1/config/ingestion/exclusions', { title: 'idle rule', apps: ['nothing'] })).json;
    await eventually(async () => (await ingestLines(server, [{ line: 'GET /healthz 200' }, { line: 'GET /healthz 200' }, { line: 'GET /healthz 204' }]), true));
    await eventually(async () => ((await call('GET', '/v1/usage/excluded')).json.lines === 3 ? true : undefined), 5000, 'the counts flushed');

    page = await signedInPage(browser, server, report, {});
    await openSettings(page, 'exclusions');
    const rules = page.locator('[data-testid=exclusions-page]');
    await rules.waitFor();
    await rules.locator('[data-testid=exclusion-rules]').waitFor();
    assert.equal(await rules.locator(`[data-rule="${noisy.id}"] [data-testid=excluded-lines]`).innerText(), '3');
    assert.equal(await rules.locator(`[data-rule="${idle.id}"] [data-testid=excluded-lines]`).innerText(), '0');
    assert.match(await rules.locator(`[data-rule="${noisy.id}"]`).innerText(), /noisy health checks\s+active, index only/);
    assert.match(await rules.locator(`[data-rule="${idle.id}"]`).innerText(), /inactive/);
    assert.match(await rules.locator('[data-testid=excluded-total]').innerText(), /^3 lines/);
    await backToSearch(page);
    await rules.waitFor({ state: 'detached' });
  });

  test('a banner says so while ingestion is suspended, and goes once it is resumed', async () => {
    assert.equal(await page.locator('[data-testid=ingestion-suspended]').count(), 0);
    const token = (await call('POST', '/v1/config/ingestion/suspend')).json.token;
    assert.equal((await call('POST', '/v1/config/ingestion/suspend/confirm', { token })).status, 200);
    await page.reload();
    await page.locator('[data-testid=ingestion-suspended]').waitFor();
    assert.match(await page.locator('[data-testid=ingestion-suspended]').innerText(), /Ingestion is suspended/);
    assert.equal((await call('POST', '/v1/config/ingestion/resume')).status, 200);
    await page.reload();
    await page.waitForSelector('[data-testid=line]');
    assert.equal(await page.locator('[data-testid=ingestion-suspended]').count(), 0);
    assert.deepEqual(report, { violations: [], pageErrors: [] });
  });
});
