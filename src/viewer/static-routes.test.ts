import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { type TestServer, request, startTestServer } from '../testing/harness.js';
import { VIEWER_DIR } from './static-routes.js';

// A file the build could copy beside index.html; the server lists the viewer's files when it starts.
const OTHER_FILE = `static-test-${process.pid}.txt`;
let server: TestServer;
before(async () => {
  assert.ok(fs.existsSync(path.join(VIEWER_DIR, 'index.html')), 'the viewer is built (npm run build)');
  fs.writeFileSync(path.join(VIEWER_DIR, OTHER_FILE), 'hello');
  server = await startTestServer();
});
after(async () => {
  fs.rmSync(path.join(VIEWER_DIR, OTHER_FILE), { force: true });
  await server.close();
});

test('the page is revalidated on every load, at / and at any viewer address', async () => {
  // The viewer's pages (src/web/shell/routes.ts) open by their addresses after a reload.
  const pages = ['/boards', '/boards/b0a1c2', '/boards/b0a1c2?range=7d', '/settings', '/settings/members', '/settings/keys', '/settings/parsing', '/settings/exclusions', '/settings/archive', '/settings/usage', '/settings/audit'];
  for (const address of ['/', '/index.html', '/?q=error', '/views/whatever', ...pages]) {
    const page = await request(`${server.url}${address}`);
    assert.equal(page.status, 200, address);
    assert.match(page.text, /<div id="root">/, address);
    assert.equal(page.headers.get('cache-control'), 'no-cache', address);
  }
});

test('hashed bundle files are cached for a year as immutable; other files briefly', async () => {
  const page = (await request(`${server.url}/`)).text;
  const assets = [...page.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1]);
  assert.ok(assets.some((asset) => asset.endsWith('.js')) && assets.some((asset) => asset.endsWith('.css')), assets.join());
  for (const asset of assets) {
    const reply = await request(`${server.url}${asset}`);
    assert.equal(reply.status, 200, asset);
    assert.equal(reply.headers.get('cache-control'), 'public, max-age=31536000, immutable', asset);
  }
  const other = await request(`${server.url}/${OTHER_FILE}`);
  assert.equal(other.text, 'hello');
  assert.equal(other.headers.get('cache-control'), 'public, max-age=3600');
});

test('API paths never fall back to the page', async () => {
  const reply = await request(`${server.url}/v1/nothing-here`);
  assert.equal(reply.status, 404);
  assert.equal(reply.json.code, 'NotFound');
});

test('a missing file is a 404, not the viewer page', async () => {
  for (const address of ['/assets/gone-1234.js', '/robots.txt', '/favicon.ico', '/metrics/x']) {
    const reply = await request(`${server.url}${address}`);
    assert.equal(reply.status, 404, address);
    assert.equal(reply.json.code, 'NotFound', address);
  }
});
