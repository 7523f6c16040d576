import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestServer, startTestServer } from '../testing/harness.js';
import { registeredRoutes } from '../testing/registered-routes.js';
import { declaredPermissions } from './permissions.js';
import { createWebServer } from './web-server.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(async () => {
  await server.close();
});

test('every route of a running server declares the permission it needs', () => {
  const declared = declaredPermissions(server.running.app);
  const registered = registeredRoutes(server.running.app).filter((route) => route !== 'OPTIONS *');
  assert.ok(registered.length > 30, `the server's routes were read (${registered.length})`);
  const undeclared = registered.filter((route) => !declared.has(route));
  assert.deepEqual(undeclared, [], 'routes without a declared permission');
});

test('the declared permissions follow the roles: reads read, configuration writes write, keys are admin, ingest takes an ingestion key', () => {
  const declared = declaredPermissions(server.running.app);
  const expected: Record<string, string> = {
    'POST /logs/ingest': 'ingest',
    'POST /logs/agent': 'ingest',
    'GET /v1/export': 'read',
    'GET /v2/export': 'read',
    'GET /v1/histogram': 'read',
    'GET /v1/viewer/context': 'read',
    'GET /v1/usage': 'read',
    'GET /ws/tail': 'read',
    'GET /v1/config/view': 'read',
    'POST /v1/config/view': 'write',
    'PUT /v1/config/view/:viewid': 'write',
    'DELETE /v1/config/presetalert/:presetid': 'write',
    // Taking over a channel makes the caller the setter of its target: an admin's act (issue 39).
    'POST /v1/config/view/:viewid/alerts/:alertid/takeover': 'admin',
    'POST /v1/config/presetalert/:presetid/alerts/:alertid/takeover': 'admin',
    'POST /v1/config/categories/:type': 'write',
    'GET /v1/config/keys': 'admin',
    'POST /v1/config/keys': 'admin',
    'DELETE /v1/config/keys/:id': 'admin',
    'GET /healthz': 'public',
    'POST /api/session': 'public',
    'GET /v1/export/download/:id': 'public',
  };
  for (const [route, permission] of Object.entries(expected)) assert.equal(declared.get(route), permission, route);
});

test('a route that declares no permission stops the server from starting, with a message that says which', async () => {
  const web = await createWebServer({ port: 0, host: '127.0.0.1', publicUrl: undefined, logLevel: 'silent', trustProxy: false, shutdownGraceMs: 1000 }, () => {});
  await assert.rejects(
    web.serve({ routes: [async (app) => void app.get('/v1/undeclared', async () => ({}))], node: 0 }),
    /The route GET \/v1\/undeclared declares no permission/,
  );
  await web.app.close();
});
