import assert from 'node:assert/strict';
import { test } from 'node:test';
import websocket from '@fastify/websocket';
import Fastify from 'fastify';
import WebSocket from 'ws';
import type { Principal, ServiceAuth } from '../http/service-auth.js';
import type { AccessScope } from '../query/access-scope.js';
import { eventually } from '../testing/harness.js';
import { TailHub } from './hub.js';
import { tailRoutes } from './tail-routes.js';

/**
 * The scope checks of an open tail overlap and may finish out of order. Here the auth is a stand-in
 * whose answers the test releases one by one (a real configuration database cannot be made to
 * answer an earlier query later), so that an older, slower check finishes after a newer one.
 */

test('a slow older scope check cannot widen the newer, narrower scope it finishes after', async () => {
  const opener: Principal = { account: 'acme', keyId: 'member:m1', role: 'member' as Principal['role'], scope: null };
  const pending: Array<(scope: AccessScope) => void> = [];
  const auth = {
    principal: async () => opener,
    current: () => new Promise<Principal | undefined>((resolve) => pending.push((scope) => resolve({ ...opener, scope }))),
  } as unknown as ServiceAuth;
  const hub = new TailHub();
  const app = Fastify();
  await app.register(websocket);
  await app.register(async (scoped) => tailRoutes(scoped, { auth, hub, publicUrl: () => undefined }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  const socket = new WebSocket(`ws://127.0.0.1:${port}/ws/tail`);
  await new Promise((resolve) => socket.once('message', resolve));
  try {
    assert.deepEqual(hub.subscriptions().map((tail) => tail.scope), [null]);
    hub.accessChanged('acme'); // the older check: reads the scope before the group narrowed
    hub.accessChanged('acme'); // the newer: reads it after
    assert.equal(pending.length, 2);
    const [older, newer] = pending;
    newer(['app:billing']);
    await eventually(() => (hub.subscriptions()[0]?.scope !== null ? true : undefined), 2000, 'the narrower scope applied');
    older(null);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(hub.subscriptions().map((tail) => tail.scope), [['app:billing']], 'the older answer is ignored');
    // A check started later still applies, wider or not.
    hub.accessChanged('acme');
    pending[2](['app:billing', 'app:shop']);
    await eventually(() => (hub.subscriptions()[0]?.scope?.length === 2 ? true : undefined), 2000, 'a newer check applied');
  } finally {
    socket.close();
    await app.close();
  }
});
