/**
 * The archive's settings page end to end in Chromium, against real S3 servers (s3rver) on loopback,
 * each behind a gate that checks request signatures as S3 does (s3rver itself does not), so that
 * a wrong secret is refused and a kept one is proven to work. An admin sets archiving up through
 * the page, sees it without its secret (which nothing the page loads carries), watches the
 * archiver write a file, moves the archive to another bucket keeping the stored secret, and ends
 * it. A scoped admin sees the archive but is offered no way to say where it goes (the API refuses
 * them that), and a readonly member is neither offered the page nor given it.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { HOUR_MS } from '../archive/object-names.js';
import { browserMissing } from '../testing/browser.js';
import { type MemberSession, type TestServer, eventually, request, startTestServer } from '../testing/harness.js';
import { S3RVER_KEY, type StoreGate, type TestS3, startStoreGate, startTestS3 } from '../testing/s3-server.js';
import { ingestLines, launchChromium, openSettings, recordedPages, signIn, signInWithPassword } from '../testing/viewer-e2e.js';

/** The store's secret key: distinctive, so that finding it anywhere the page loaded is unambiguous. */
const SECRET = `e2e-secret-${randomBytes(12).toString('hex')}`;

let server: TestServer;
let first: TestS3;
let second: TestS3;
let firstGate: StoreGate;
let secondGate: StoreGate;
let browser: Browser;
let scopedAdmin: MemberSession;
let reader: MemberSession;
/** The body of every answer the admin's page loaded from the server. */
const loaded: Array<Promise<string>> = [];

const pages = recordedPages({ width: 1280, height: 800 });
const newPage = () => pages.open(browser);

/** The archive's configuration as the API gives it to the organisation's service key (404 when none). */
const configByKey = () => request(`${server.url}/v1/config/archiving`, { headers: { servicekey: server.org.serviceKey } });

describe('the archive page (Chromium, s3rver on loopback)', { skip: browserMissing() }, () => {
  let page: Page;
  before(async () => {
    first = await startTestS3('archive-first');
    second = await startTestS3('archive-second');
    firstGate = await startStoreGate(first.endpoint, { accessKey: S3RVER_KEY, secret: SECRET });
    secondGate = await startStoreGate(second.endpoint, { accessKey: S3RVER_KEY, secret: SECRET });
    // Private endpoints are allowed by default (LOGSTEAD_ALLOW_PRIVATE_ARCHIVES), which loopback needs.
    server = await startTestServer({ LOGSTEAD_ARCHIVE_DELAY_MINUTES: '0', LOGSTEAD_ARCHIVE_INTERVAL_SECONDS: '1', LOGSTEAD_ARCHIVE_SETTLE_SECONDS: '1' });
    const group = await request(`${server.url}/v1/config/groups`, {
      method: 'POST',
      headers: { servicekey: server.org.serviceKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'api team', access_scopes: 'app:api' }),
    });
    assert.equal(group.status, 200, group.text);
    scopedAdmin = await server.signInAs('sia@example.com', 'admin', { groups: [group.json.id] });
    reader = await server.signInAs('rey@example.com', 'readonly');
    browser = await launchChromium();
    page = await newPage();
    page.on('response', (response) => {
      if (response.url().startsWith(server.url)) loaded.push(response.text().catch(() => ''));
    });
    await signIn(server, page, server.org.serviceKey);
    await page.waitForSelector('[data-testid=search-toolbar]');
  });
  after(async () => {
    await pages.close();
    await browser?.close();
    await server?.close();
    for (const closing of [firstGate, secondGate, first, second]) await closing?.close();
  });

  async function fillForm(fields: { bucket: string; endpoint: string; secret: string }) {
    await page.fill('[data-testid=archive-bucket-input]', fields.bucket);
    await page.fill('[data-testid=archive-endpoint-input]', fields.endpoint);
    await page.fill('[data-testid=archive-accesskey-input]', S3RVER_KEY);
    await page.fill('[data-testid=archive-secretkey-input]', fields.secret);
    await page.check('[data-testid=archive-pathstyle-input]');
    await page.click('[data-testid=save-archive]');
  }

  async function shownConfig() {
    const config = page.locator('[data-testid=archive-config][data-configured=true]');
    await config.waitFor();
    return config.innerText();
  }

  async function secretNowhere() {
    assert.ok(!(await page.content()).includes(SECRET), 'not in the page');
    const bodies = await Promise.all(loaded);
    assert.ok(bodies.length > 0);
    assert.deepEqual(
      bodies.filter((body) => body.includes(SECRET)),
      [],
      'not in anything the page loaded',
    );
  }

  test('an admin sets archiving up through the page: a wrong secret is refused and nothing saved, the right one saved and shown without itself', async () => {
    await openSettings(page, 'archive');
    assert.equal(await page.locator('[data-testid=archive-config]').getAttribute('data-configured'), 'false');
    await page.click('[data-testid=edit-archive]');
    await fillForm({ bucket: first.bucket, endpoint: firstGate.endpoint, secret: 'not-the-secret' });
    const refusal = page.locator('form[aria-label="Archive bucket"] [role=alert]');
    await refusal.waitFor();
    assert.match(await refusal.innerText(), /refused a test write.*SignatureDoesNotMatch.*Nothing was saved/);
    assert.equal((await configByKey()).status, 404, 'nothing saved');

    await page.fill('[data-testid=archive-secretkey-input]', SECRET);
    await page.click('[data-testid=save-archive]');
    const shown = await shownConfig();
    assert.match(shown, new RegExp(`Bucket\\s+${first.bucket}`));
    assert.match(shown, new RegExp(`Endpoint\\s+${firstGate.endpoint}`));
    assert.match(shown, new RegExp(`Access key\\s+${S3RVER_KEY}`));
    assert.equal(await page.locator('[data-testid=edit-archive]').innerText(), 'Change the bucket');
    const saved = await configByKey();
    assert.equal(saved.status, 200);
    assert.deepEqual(saved.json, { integration: 's3', bucket: first.bucket, endpoint: firstGate.endpoint, accesskey: S3RVER_KEY, forcepathstyle: true });

    // Lines arriving from now on are archived (the archiver goes by arrival): it writes this line's
    // hour, two hours ago, and the page's progress shows the file.
    await ingestLines(server, [{ line: 'archived from two hours ago', app: 'api', timestamp: Date.now() - 2 * HOUR_MS }]);
    await eventually(async () => ((await first.keys()).length ? true : undefined), 60_000, 'an hour archived to the first bucket');
    await eventually(
      async () => {
        await page.reload();
        await page.waitForSelector('[data-testid=archive-progress]');
        return (await page.locator('[data-testid=archive-files] td', { hasText: 'written' }).count()) > 0 ? true : undefined;
      },
      30_000,
      'the page lists the written file',
    );
    assert.ok((await page.locator('[data-testid=archive-files]').innerText()).includes((await first.keys())[0]));
    await secretNowhere();
  });

  test('the admin moves the archive to another bucket: the form holds no secret, and without a new one the stored secret is kept', async () => {
    await page.click('[data-testid=edit-archive]');
    assert.equal(await page.inputValue('[data-testid=archive-bucket-input]'), first.bucket, 'the form starts from the configuration');
    assert.equal(await page.inputValue('[data-testid=archive-secretkey-input]'), '', 'the form holds no secret');
    await page.fill('[data-testid=archive-bucket-input]', second.bucket);
    await page.fill('[data-testid=archive-endpoint-input]', secondGate.endpoint);
    await page.click('[data-testid=save-archive]');
    // The second gate takes only the stored secret's signatures: the save proves it was kept.
    await page.waitForSelector(`[data-testid=archive-bucket]:text-is("${second.bucket}")`);
    assert.match(await shownConfig(), new RegExp(`Endpoint\\s+${secondGate.endpoint}`));
    assert.deepEqual((await configByKey()).json, { integration: 's3', bucket: second.bucket, endpoint: secondGate.endpoint, accesskey: S3RVER_KEY, forcepathstyle: true });
    // The audit trail records both changes, with the secret masked.
    await openSettings(page, 'audit');
    await eventually(async () => ((await page.locator('[data-testid=audit-record]', { hasText: second.bucket }).count()) > 0 ? true : undefined), 10_000, 'the replacement in the audit trail');
    await secretNowhere();
    await openSettings(page, 'archive');
  });

  test('a scoped admin sees the archive but is offered no way to say where it goes, which the API refuses them', async () => {
    const theirs = await newPage();
    await signInWithPassword(server, theirs, scopedAdmin.email, scopedAdmin.password);
    await theirs.waitForSelector('[data-testid=search-toolbar]');
    await openSettings(theirs, 'archive');
    await theirs.waitForSelector(`[data-testid=archive-bucket]:text-is("${second.bucket}")`);
    await theirs.waitForSelector('[data-testid=archive-scoped-note]');
    assert.equal(await theirs.locator('[data-testid=edit-archive]').count(), 0);
    assert.equal(await theirs.locator('form[aria-label="Archive bucket"]').count(), 0);
    const put = await request(`${server.url}/v1/config/archiving`, {
      method: 'PUT',
      headers: { ...scopedAdmin.headers(true), 'content-type': 'application/json' },
      body: JSON.stringify({ integration: 's3', bucket: first.bucket, endpoint: firstGate.endpoint, accesskey: S3RVER_KEY, forcepathstyle: true }),
    });
    assert.equal(put.status, 403, put.text);
    assert.match(put.json.error, /access scope/);
    assert.equal((await configByKey()).json.bucket, second.bucket, 'unchanged');
  });

  test('a readonly member is not offered the archive page, is refused it at its address, and the API gives them nothing', async () => {
    const theirs = await newPage();
    await signInWithPassword(server, theirs, reader.email, reader.password);
    await theirs.waitForSelector('[data-testid=search-toolbar]');
    await theirs.click('[data-testid=nav-settings]');
    await theirs.waitForSelector('.settings-nav a');
    assert.ok(!(await theirs.locator('.settings-nav a').allInnerTexts()).includes('Archive'));
    await theirs.goto(`${server.url}/settings/archive`);
    await theirs.waitForSelector('[data-testid=settings-refused]');
    assert.equal(await theirs.locator('[data-testid=archive-page], [data-testid=edit-archive], [data-testid=end-archiving]').count(), 0);
    for (const [method, path] of [
      ['GET', '/v1/config/archiving'],
      ['GET', '/v1/archive/status'],
      ['DELETE', '/v1/config/archiving'],
    ]) {
      const reply = await request(`${server.url}${path}`, { method, headers: reader.headers(method !== 'GET') });
      assert.equal(reply.status, 403, `${method} ${path}: ${reply.text}`);
    }
    assert.equal((await configByKey()).status, 200, 'still archiving');
  });

  test('the admin ends archiving on the page; the files written stay in the bucket', async () => {
    const written = await first.keys();
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('[data-testid=end-archiving]');
    await page.waitForSelector('[data-testid=archive-config][data-configured=false]');
    assert.equal(await page.locator('[data-testid=edit-archive]').innerText(), 'Set up archiving');
    assert.equal(await page.locator('[data-testid=end-archiving]').count(), 0);
    assert.equal((await configByKey()).status, 404);
    assert.deepEqual(await first.keys(), written);
    await page.reload();
    await page.waitForSelector('[data-testid=archive-config][data-configured=false]');
    await secretNowhere();
  });

  test('the Content-Security-Policy blocked nothing in these tests, and the page threw nothing', () => {
    assert.deepEqual(pages.cspViolations, []);
    assert.deepEqual(pages.pageErrors, []);
  });
});
