/**
 * The viewer's restore offer, end to end in Chromium against a real server archiving to a real S3
 * server (s3rver on loopback): lines archived, then dropped by retention; the viewer opened at
 * their range offers the restore, shows its progress to done, and then lists the restored lines.
 * A member who is not an admin is told an admin can restore.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { HOUR_MS } from '../archive/object-names.js';
import { browserMissing } from '../testing/browser.js';
import { type TestServer, eventually, request, startTestServer } from '../testing/harness.js';
import { S3RVER_KEY, S3RVER_SECRET, type TestS3, startTestS3 } from '../testing/s3-server.js';
import { ingestLines, launchChromium, reportingContext, signInWithPassword, signedInPage } from '../testing/viewer-e2e.js';

let server: TestServer;
let s3: TestS3;
let browser: Browser;
const cspViolations: string[] = [];
const pageErrors: string[] = [];
const base = Math.floor((Date.now() - 3 * 86_400_000) / HOUR_MS) * HOUR_MS;
/** The viewer at the archived lines' range, searching for them. */
const oldRange = () => `${server.url}/?q=vaultword&from=${base - HOUR_MS}&to=${base + 3 * HOUR_MS}`;
/** The same, with the app menu on ledger: the other app's vaultword lines are not restored. */
const oldRangeOfLedger = () => `${oldRange()}&apps=ledger`;

describe('restoring archived lines from the viewer (Chromium)', { skip: browserMissing() }, () => {
  before(async () => {
    s3 = await startTestS3();
    // One line a restore step, so a restore of many lines is still running when Cancel is clicked.
    server = await startTestServer({ LOGSTEAD_ARCHIVE_DELAY_MINUTES: '0', LOGSTEAD_ARCHIVE_INTERVAL_SECONDS: '1', LOGSTEAD_ARCHIVE_SETTLE_SECONDS: '1', LOGSTEAD_RESTORE_STEP_LINES: '1' });
    const key = server.org.serviceKey;
    const configured = await request(`${server.url}/v1/config/archiving`, {
      method: 'POST',
      headers: { servicekey: key, 'content-type': 'application/json' },
      body: JSON.stringify({ integration: 's3', bucket: s3.bucket, endpoint: s3.endpoint, accesskey: S3RVER_KEY, secretkey: S3RVER_SECRET, forcepathstyle: true }),
    });
    assert.equal(configured.status, 200, configured.text);
    // Three days ago: twelve lines over two hours and 150 more in the second; and one line of today (the viewer opens on it).
    await ingestLines(server, Array.from({ length: 12 }, (_, i) => ({ line: `vaultword entry ${i}`, app: 'ledger', timestamp: base + i * 10 * 60_000 })));
    await ingestLines(server, Array.from({ length: 150 }, (_, i) => ({ line: `bulkword row ${i}`, app: 'ledger', timestamp: base + HOUR_MS + i * 1000 })));
    await ingestLines(server, Array.from({ length: 3 }, (_, i) => ({ line: `vaultword elsewhere ${i}`, app: 'audit', timestamp: base + i * 10 * 60_000 + 1 })));
    await ingestLines(server, [{ line: 'fresh line of today', app: 'ledger' }]); // its hour is still open: not archived yet
    await eventually(
      async () => {
        const status = (await request(`${server.url}/v1/archive/status`, { headers: { servicekey: key } })).json;
        const written = status.files.reduce((sum: number, file: { status: string; lines: number }) => sum + (file.status === 'written' ? file.lines : 0), 0);
        return status.pending === 0 && written === 165 ? true : undefined;
      },
      30_000,
      'the lines archived',
    );
    await server.withAccounts((accounts) => accounts.setRetention(server.org.account, 1));
    await server.restart(); // retention drops the old lines
    assert.equal(await server.running.store.storedLines(server.org.account), 1);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await s3?.close();
  });

  test('a range older than retention offers the restore; its progress reaches done, and the restored lines are listed', async () => {
    const page = await signedInPage(browser, server, { violations: cspViolations, pageErrors }, { viewport: { width: 1300, height: 800 } });
    await page.goto(oldRange());
    await page.locator('main.results[data-answered=current]').waitFor();
    assert.equal(await page.locator('[data-testid=line]').count(), 0, 'nothing stored in the range');
    const offer = page.locator('[data-testid=restore-offer]');
    await offer.waitFor();
    assert.match(await offer.innerText(), /past this organisation's retention of 1 days/);
    // The last hour is within retention: no offer there.
    await page.goto(server.url);
    await page.waitForSelector('[data-testid=line]');
    assert.equal(await page.locator('[data-testid=restore-offer]').count(), 0);

    await page.goto(oldRangeOfLedger());
    await page.click('[data-testid=restore-start]');
    const status = page.locator('[data-testid=restore-status]');
    await status.waitFor();
    await page.locator('[data-testid=restore-status][data-status=done]').waitFor({ timeout: 60_000 });
    assert.match(await status.innerText(), /Restored 12 lines from the archive \(12 matched/, 'the app menu went with the query: the audit app\'s lines were not restored');
    await eventually(async () => ((await page.locator('[data-testid=line]').count()) === 12 ? true : undefined), 15_000, 'the restored lines listed');
    const texts = await page.locator('[data-testid=line] .text').allTextContents();
    assert.deepEqual([...texts].sort(), Array.from({ length: 12 }, (_, i) => `vaultword entry ${i}`).sort());
    assert.deepEqual(cspViolations, []);
    assert.deepEqual(pageErrors, []);
    await page.context().close();
  });

  test('a running restore shows a Cancel button that cancels it; the lines loaded before stay', async () => {
    const page = await signedInPage(browser, server, { violations: cspViolations, pageErrors }, { viewport: { width: 1300, height: 800 } });
    await page.goto(`${server.url}/?q=bulkword&from=${base - HOUR_MS}&to=${base + 3 * HOUR_MS}`);
    await page.click('[data-testid=restore-start]'); // 150 lines, one a step: it runs for a while
    await page.locator('[data-testid=restore-status][data-status=running]').waitFor();
    await page.click('[data-testid=restore-cancel]');
    const cancelled = page.locator('[data-testid=restore-status][data-status=cancelled]');
    await cancelled.waitFor();
    const loaded = Number(/The (\d+) lines loaded before the cancel stay/.exec(await cancelled.innerText())?.[1]);
    assert.ok(loaded < 150, `cancelled mid-way: ${loaded}`);
    assert.equal(await page.locator('[data-testid=restore-cancel]').count(), 0, 'no Cancel once cancelled');
    await page.context().close();
  });

  test('a member who is not an admin is told an admin can restore, with no button', async () => {
    const reader = await server.signInAs('reader@restore.example.com', 'member');
    const page = await (await reportingContext(browser, cspViolations, { viewport: { width: 1300, height: 800 } })).newPage();
    await signInWithPassword(server, page, reader.email, reader.password);
    await page.waitForSelector('[data-testid=line]');
    await page.goto(`${server.url}/?q=nothing-restored&from=${base - HOUR_MS}&to=${base + 3 * HOUR_MS}`);
    const offer = page.locator('[data-testid=restore-offer]');
    await offer.waitFor();
    assert.match(await offer.innerText(), /An admin can restore them from the archive\./);
    assert.equal(await page.locator('[data-testid=restore-start]').count(), 0);
    await page.context().close();
  });
});
