/**
 * The alert editor's Slack, Teams, OpsGenie and VictorOps channels, end to end in Chromium (issue
 * 41): a person saves a view with one of each, the API holds them as Mezmo's shapes, and a line
 * that matches sends the Slack alert, Block Kit with its text fallback, to a Slack-shaped receiver
 * on loopback.
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
let slack: Awaited<ReturnType<typeof startHttpReceiver>>;
const report = { violations: [] as string[], pageErrors: [] as string[] };

describe('the alert editor\'s chat and paging channels (Chromium)', { skip: browserMissing() }, () => {
  before(async () => {
    slack = await startHttpReceiver();
    server = await startTestServer({ LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS: 'true' });
    await ingestLines(server, [{ line: 'checkout started', app: 'checkout', level: 'info', timestamp: Date.now() - 60_000 }]);
    browser = await launchChromium();
    page = await signedInPage(browser, server, report, { viewport: { width: 1400, height: 900 }, locale: 'en-US' });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await slack?.close();
  });

  test('saves a view with a Slack, a Teams, an OpsGenie and a VictorOps alert', async () => {
    await page.fill('[data-testid=query]', 'app:checkout');
    await page.press('[data-testid=query]', 'Enter');
    await page.click('[data-testid=save-view]');
    await page.fill('[data-testid=view-name]', 'Checkout failures');
    const dialog = page.getByRole('dialog', { name: 'Save view' });
    await dialog.getByRole('button', { name: '+ Slack' }).click();
    await dialog.getByLabel('Slack webhook URL').fill(`${slack.url}/services/T0/B0/x`);
    await dialog.getByLabel('Colour').fill('#d4b135');
    await dialog.getByRole('button', { name: '+ Teams' }).click();
    await dialog.getByLabel('Teams workflow URL').fill(`${slack.url}/teams`);
    await dialog.getByRole('button', { name: '+ OpsGenie' }).click();
    await dialog.getByLabel('OpsGenie API key').fill('genie-key');
    await dialog.getByLabel('OpsGenie region').selectOption('eu');
    await dialog.getByRole('button', { name: '+ VictorOps' }).click();
    await dialog.getByLabel('VictorOps API key').fill('vo-key');
    await dialog.getByLabel('VictorOps routing key').fill('checkout-team');
    await dialog.getByRole('button', { name: 'Save view' }).click();
    await page.locator('[data-testid=view-link]', { hasText: 'Checkout failures' }).waitFor();
    const views = await request(`${server.url}/v1/config/view`, { headers: { servicekey: server.org.serviceKey } });
    const saved = views.json.find((view: { name: string }) => view.name === 'Checkout failures');
    const shapes = saved.channels.map(({ integration, url, color, key, region, routingkey }: Record<string, string>) => ({ integration, url, color, key, region, routingkey }));
    assert.deepEqual(shapes, [
      { integration: 'slack', url: `${slack.url}/services/T0/B0/x`, color: '#d4b135', key: undefined, region: undefined, routingkey: undefined },
      { integration: 'teams', url: `${slack.url}/teams`, color: undefined, key: undefined, region: undefined, routingkey: undefined },
      { integration: 'opsgenie', url: undefined, color: undefined, key: 'genie-key', region: 'eu', routingkey: undefined },
      { integration: 'victorops', url: undefined, color: undefined, key: 'vo-key', region: undefined, routingkey: 'checkout-team' },
    ]);
    // Reopened, the editor shows what was saved.
    await page.getByRole('button', { name: 'Edit Checkout failures' }).click();
    const editor = page.getByRole('dialog', { name: 'Edit view' });
    assert.equal(await editor.getByLabel('Slack webhook URL').inputValue(), `${slack.url}/services/T0/B0/x`);
    assert.equal(await editor.getByLabel('VictorOps routing key').inputValue(), 'checkout-team');
    await editor.getByLabel('VictorOps routing key').press('Escape');
    await editor.waitFor({ state: 'detached' });
  });

  test('a matching line sends the Slack alert as Block Kit with a text fallback', async () => {
    await ingestLines(server, [{ line: 'checkout failed: card declined', app: 'checkout', level: 'error' }]);
    const hook = await eventually(() => slack.received.find((received) => received.path === '/services/T0/B0/x'), 15_000, 'the Slack message');
    const body = JSON.parse(hook.body);
    assert.match(body.text, /Checkout failures/);
    assert.ok(Array.isArray(body.blocks ?? body.attachments?.[0]?.blocks), 'Block Kit blocks');
    assert.match(JSON.stringify(body), /card declined/);
  });

  test('nothing was blocked by the Content-Security-Policy, and the page threw no errors', () => {
    assert.deepEqual(report.violations, []);
    assert.deepEqual(report.pageErrors, []);
  });
});
