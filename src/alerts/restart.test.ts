/**
 * kill -9 in the middle of an alert window, then a restart: each alert fires exactly once. This
 * runs the real server process with real time, so it waits for one 30-second window.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { eventually, request } from '../testing/harness.js';
import { exited, serveProcess } from '../testing/process.js';
import { startHttpReceiver } from '../testing/receivers.js';

const WINDOW = 30_000;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-alert-restart-'));
after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
const serve = () => serveProcess(dataDir, { LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS: 'true', LOGSTEAD_DELIVERY_RETRY_BASE_MS: '50' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('after kill -9 mid-window, immediate is not repeated and terminal fires exactly once', { timeout: 120_000 }, async () => {
  const hooks = await startHttpReceiver();
  try {
    let server = await serve();
    const credentials = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
    const view = await request(`${server.url}/v1/config/view`, {
      method: 'POST',
      headers: { servicekey: credentials.serviceKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'crash test',
        query: 'crashword',
        channels: [
          { integration: 'webhook', url: `${hooks.url}/immediate`, triggerlimit: 2, triggerinterval: '30', immediate: true, terminal: false },
          { integration: 'webhook', url: `${hooks.url}/terminal`, triggerlimit: 2, triggerinterval: '30', immediate: false, terminal: true },
        ],
      }),
    });
    assert.equal(view.status, 200, view.text);
    const ingest = (url: string, count: number) =>
      request(`${url}/logs/ingest?hostname=h`, {
        method: 'POST',
        headers: { apikey: credentials.ingestionKey, 'content-type': 'application/json' },
        body: JSON.stringify({ lines: Array.from({ length: count }, (_, i) => ({ line: `crashword ${i}` })) }),
      });

    // Work inside one window, with at least 12 s of it left.
    if (WINDOW - (Date.now() % WINDOW) < 12_000) await sleep(WINDOW - (Date.now() % WINDOW) + 200);
    const windowEnd = Math.ceil(Date.now() / WINDOW) * WINDOW;

    assert.equal((await ingest(server.url, 3)).status, 200);
    await eventually(() => (hooks.received.some((hook) => hook.path === '/immediate') ? true : undefined), 5000, 'the immediate alert');

    server.child.kill('SIGKILL');
    await exited(server.child);
    server = await serve();
    assert.equal((await ingest(server.url, 2)).status, 200);

    await sleep(Math.max(0, windowEnd - Date.now()) + 3000); // the window ends; the clock ticks each second
    const paths = hooks.received.map((hook) => hook.path);
    assert.deepEqual(paths.filter((p) => p === '/immediate').length, 1, 'immediate fired once, not again after the restart');
    assert.deepEqual(paths.filter((p) => p === '/terminal').length, 1, 'terminal fired exactly once');
    const terminal = JSON.parse(hooks.received.find((hook) => hook.path === '/terminal')!.body);
    assert.equal(terminal.matches, 5, 'lines from before and after the crash count in the same window');
    server.child.kill('SIGTERM');
    await exited(server.child);
  } finally {
    await hooks.close();
  }
});
