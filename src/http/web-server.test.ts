import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createWebServer } from './web-server.js';

const settings = { port: 0, host: '127.0.0.1', publicUrl: undefined, logLevel: 'silent', trustProxy: false, shutdownGraceMs: 1000 };

test('/healthz answers 503 while the start is still running after the server listens, 200 once it is done; closing lets requests under way finish', async () => {
  const web = await createWebServer(settings, () => {});
  let finishStart!: () => void;
  const startDone = new Promise<void>((resolve) => (finishStart = resolve));
  let listeningAt: string | undefined;
  let during: { status: number; body: unknown } | undefined;
  const serving = web.serve({
    routes: [async (app) => void app.get('/slow', { config: { permission: 'public' } }, async () => new Promise((resolve) => setTimeout(() => resolve({ done: true }), 300)))],
    node: 7,
    whenListening: async (url) => {
      listeningAt = url;
      const reply = await fetch(`${url}/healthz`);
      during = { status: reply.status, body: await reply.json() };
      await startDone;
    },
  });
  while (during === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(during.status, 503, 'not ready while a subsystem is still starting');
  assert.match(JSON.stringify(during.body), /still starting/);
  finishStart();
  const server = await serving;
  assert.equal(server.url, listeningAt);
  assert.equal(web.publicUrl(), server.url, 'without LOGSTEAD_PUBLIC_URL, the address it listens on');
  const ready = await fetch(`${server.url}/healthz`);
  assert.equal(ready.status, 200);
  assert.deepEqual(await ready.json(), { status: 'ok', node: 7 });

  // A request under way when the close begins is answered before the server stops.
  const slow = fetch(`${server.url}/slow`).then((reply) => reply.json());
  await new Promise((resolve) => setTimeout(resolve, 50));
  await server.close();
  assert.deepEqual(await slow, { done: true });
  await assert.rejects(fetch(`${server.url}/healthz`), 'closed: nothing listens');
});
