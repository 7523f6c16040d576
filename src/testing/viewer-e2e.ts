/** What the viewer's browser tests share: a Chromium, contexts that report CSP violations, ingestion and sign-in. */
import assert from 'node:assert/strict';
import { type Browser, type BrowserContext, type BrowserContextOptions, type Page, chromium } from 'playwright-core';
import { CHROMIUM } from './browser.js';
import { type TestServer, request } from './harness.js';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** A browser context whose pages report each CSP violation into `violations`. */
export async function reportingContext(browser: Browser, violations: string[], options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  await context.exposeFunction('reportCspViolation', (violation: string) => violations.push(violation));
  await context.addInitScript(
    "document.addEventListener('securitypolicyviolation', (event) => window.reportCspViolation(`${event.violatedDirective} blocked ${event.blockedURI} (${event.sourceFile}:${event.lineNumber})`))",
  );
  return context;
}

/** A new page of `context` that records each uncaught page error (each would leave the viewer blank) into `pageErrors`. */
async function recordingPage(context: BrowserContext, pageErrors: string[]): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(`${error.message}\n${error.stack}`));
  return page;
}

/**
 * The pages a test file opens, each in a context of its own at one viewport (en-US), recording
 * every CSP violation and uncaught page error for the file's last test to check; close() closes
 * their contexts.
 */
export function recordedPages(viewport: { width: number; height: number }) {
  const cspViolations: string[] = [];
  const pageErrors: string[] = [];
  const contexts: BrowserContext[] = [];
  return {
    cspViolations,
    pageErrors,
    async open(browser: Browser): Promise<Page> {
      const context = await reportingContext(browser, cspViolations, { viewport, locale: 'en-US' });
      contexts.push(context);
      return recordingPage(context, pageErrors);
    },
    async close(): Promise<void> {
      for (const context of contexts) await context.close();
    },
  };
}

export async function ingestLines(server: TestServer, lines: Array<Record<string, unknown>>, host = 'web-1', key = server.org.ingestionKey) {
  const reply = await request(`${server.url}/logs/ingest?hostname=${host}&tags=prod`, {
    method: 'POST',
    headers: { apikey: key, 'content-type': 'application/json' },
    body: JSON.stringify({ lines }),
  });
  assert.equal(reply.status, 200, reply.text);
}

/** Signs in on the sign-in page with a service key, its secondary way in (the e-mail and password form comes first). */
export async function signIn(server: TestServer, target: Page, key: string) {
  await target.goto(server.url);
  await target.click('[data-testid=use-service-key]');
  await target.fill('[data-testid=service-key]', key);
  await target.click('button[type=submit]');
}

/** Signs in on the sign-in page with a member's e-mail and password. */
export async function signInWithPassword(server: TestServer, target: Page, email: string, password: string) {
  await target.goto(server.url);
  await target.fill('[data-testid=email]', email);
  await target.fill('[data-testid=password]', password);
  await target.click('button[type=submit]');
}

/**
 * A signed-in viewer page showing its first lines, in a context that reports CSP violations into
 * `violations` and uncaught page errors (each would leave the viewer blank) into `pageErrors`.
 */
export async function signedInPage(
  browser: Browser,
  server: TestServer,
  report: { violations: string[]; pageErrors: string[] },
  options: BrowserContextOptions,
): Promise<Page> {
  const page = await recordingPage(await reportingContext(browser, report.violations, options), report.pageErrors);
  await signIn(server, page, server.org.serviceKey);
  await page.waitForSelector('[data-testid=line]');
  return page;
}

/** Opens a settings page through the navigation, as a person would: Settings, then the page in its menu. */
export async function openSettings(target: Page, section: string) {
  await target.click('[data-testid=nav-settings]');
  await target.click(`[data-testid=settings-${section}]`);
  await target.waitForURL((url) => url.pathname === `/settings/${section}`);
}

/** Back to the search through the navigation; the search page shows its toolbar again. */
export async function backToSearch(target: Page) {
  await target.click('[data-testid=nav-search]');
  await target.waitForSelector('[data-testid=search-toolbar]');
}
