import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { type MemberSession, type TestServer, request, startTestServer } from '../testing/harness.js';
import { registeredRoutes } from '../testing/registered-routes.js';
import { errors } from './errors.js';
import { type Permission, ROLES, type Role, declaredPermissions, enforcePermissions, leastRoleFor, roleAllows } from './permissions.js';
import { createWebServer } from './web-server.js';

/**
 * Roles, route by route: every route the server registers is called by every role (members signed
 * in with a password, and a service key), and each call must be refused with exactly the role's
 * 403 when roleAllows says no, and never with it when roleAllows says yes. The list of routes is
 * the server's own (declaredPermissions, checked against registeredRoutes), so a route added
 * tomorrow is walked without anyone adding it here.
 */

/** Who calls: a role, and the headers that carry its credential (with `write`, the CSRF token too). */
export interface Caller {
  name: string;
  role: Role;
  headers(write: boolean): Record<string, string>;
}

/** What a walked call should carry: the path with its parameters filled, and a body for writes. */
export type Target = (route: string) => { path: string; body?: unknown };

interface Walk {
  /** Every "METHOD /path" that was called, with the permission it declared. */
  walked: Map<string, Permission>;
  /** Each call whose answer disagrees with roleAllows, in words. */
  problems: string[];
  /** How many calls were refused with the role's 403, and how many were let through. */
  refused: number;
  allowed: number;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const roleMessage = (role: Role, permission: Permission) => errors.roleForbidden(role, leastRoleFor(permission)).body;

/**
 * Calls every registered route that declares `read` or above, as each caller, and compares the
 * answer with roleAllows. Public and ingest routes have credentials of their own and are not
 * walked here. A registered route with no declared permission is itself a problem.
 */
export async function walkRoutes(app: FastifyInstance, baseUrl: string, callers: Caller[], target: Target): Promise<Walk> {
  const declared = declaredPermissions(app);
  const walk: Walk = { walked: new Map(), problems: [], refused: 0, allowed: 0 };
  for (const route of registeredRoutes(app)) {
    if (route === 'OPTIONS *') continue; // the CORS plugin's preflight, exempt by design
    const permission = declared.get(route);
    if (permission === undefined) {
      walk.problems.push(`${route} declares no permission`);
      continue;
    }
    if (permission === 'public' || permission === 'ingest') continue;
    walk.walked.set(route, permission);
    const [method, pattern] = route.split(' ');
    for (const caller of callers) {
      const { path, body } = target(pattern);
      const write = WRITES.has(method);
      const sendsBody = write && method !== 'DELETE';
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { ...caller.headers(write), ...(sendsBody ? { 'content-type': 'application/json' } : {}) },
        body: sendsBody ? JSON.stringify(body ?? {}) : undefined,
      });
      const text = await response.text();
      const expected = roleMessage(caller.role, permission);
      // HEAD answers carry no body: its status alone says whether the role was refused.
      const isRoleRefusal = response.status === 403 && (method === 'HEAD' || text === JSON.stringify(expected));
      const where = `${caller.name} (${caller.role}) ${route} [${permission}]`;
      if (roleAllows(caller.role, permission)) {
        walk.allowed++;
        if (isRoleRefusal) walk.problems.push(`${where}: refused, but the role allows it: ${text}`);
        if (response.status === 401) walk.problems.push(`${where}: 401, the credential was not accepted: ${text}`);
      } else {
        walk.refused++;
        if (!isRoleRefusal) walk.problems.push(`${where}: expected the role's 403 ${JSON.stringify(expected)}, got ${response.status} ${text.slice(0, 200)}`);
      }
    }
  }
  return walk;
}

let server: TestServer;
const people: Partial<Record<Role, MemberSession>> = {};
let callers: Caller[];
const ids = { viewid: '', presetid: '', categoryId: '', keyId: '', groupId: '', boardId: '', graphId: '', memberEmail: 'walk-target@example.com' };

const key = () => ({ servicekey: server.org.serviceKey });
async function asKey(method: string, path: string, body?: unknown) {
  return request(`${server.url}${path}`, { method, headers: { ...key(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
}
async function as(session: MemberSession, method: string, path: string, body?: unknown) {
  const write = method !== 'GET';
  return request(`${server.url}${path}`, {
    method,
    headers: { ...session.headers(write), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

before(async () => {
  server = await startTestServer();
  for (const role of ROLES) people[role] = await server.signInAs(`${role}@walk.example.com`, role);
  callers = [
    ...ROLES.map((role): Caller => ({ name: `member ${people[role]!.email}`, role, headers: (write) => people[role]!.headers(write) })),
    // Service keys hold every right, for automation.
    { name: 'service key', role: 'owner', headers: () => key() },
  ];
  // Real ids, so that allowed calls reach the resource rather than stopping at a 404.
  const preset = await asKey('POST', '/v1/config/presetalert', { name: 'walk preset', channels: [{ integration: 'email', emails: ['walk@example.com'], triggerlimit: 1, triggerinterval: '30', operator: 'presence', immediate: 'true' }] });
  const category = await asKey('POST', '/v1/config/categories/views', { name: 'walk category' });
  const view = await asKey('POST', '/v1/config/view', { name: 'walk view', query: 'walk' });
  const ingestionKey = await asKey('POST', '/v1/config/keys?type=ingestion', { name: 'walk key' });
  const group = await asKey('POST', '/v1/config/groups', { name: 'walk group', access_scopes: 'app:walk' });
  const member = await asKey('POST', '/v1/config/members', { email: ids.memberEmail, role: 'readonly' });
  const board = await asKey('POST', '/v1/config/board', { name: 'walk board', graphs: [{ title: 'walk graph', measure: { type: 'count' } }] });
  for (const reply of [preset, category, view, ingestionKey, group, member, board]) assert.equal(reply.status, 200, reply.text);
  Object.assign(ids, { viewid: view.json.viewid, presetid: preset.json.presetid, categoryId: category.json.id, keyId: ingestionKey.json.id, groupId: group.json.id, boardId: board.json.boardId, graphId: board.json.graphs[0].graphId });
});
after(() => server?.close());

/** Fills a route's parameters with this organisation's real ids (a DELETE by one role leaves a 404 for the next, which is fine). */
function realTarget(pattern: string): { path: string; body?: unknown } {
  const path = pattern
    .replace(':viewid', ids.viewid)
    .replace(':presetid', ids.presetid)
    .replace(':type', 'views')
    .replace(':groupId', ids.groupId)
    .replace(':boardId', ids.boardId)
    .replace(':graphId', ids.graphId)
    .replace(':email', encodeURIComponent(ids.memberEmail))
    .replace(':id', pattern.startsWith('/v1/config/categories') ? ids.categoryId : pattern.startsWith('/v1/config/keys') ? ids.keyId : 'nothing')
    .replace(/:\w+/g, 'nothing');
  // The fields sidebar answers a real search, not a missing-parameter 400, to every role that may read.
  if (pattern === '/v1/viewer/fields') return { path: `${path}?from=${Date.now() - 3_600_000}&to=${Date.now()}`, body: {} };
  return { path, body: {} };
}

describe('every registered route, with every role', () => {
  test('each call is refused with the role message exactly when roleAllows says no', async () => {
    const walk = await walkRoutes(server.running.app, server.url, callers, realTarget);
    assert.deepEqual(walk.problems, []);
    // The walk reached what it should: configuration at every level, reads, and the people APIs.
    for (const route of ['GET /v1/export', 'GET /v1/viewer/patterns', 'GET /ws/tail', 'POST /v1/config/view', 'PUT /v1/config/board/:boardId', 'GET /v1/board/:boardId/graph/:graphId/data', 'POST /v1/viewer/chart', 'DELETE /v1/config/keys/:id', 'POST /v1/config/members', 'PATCH /v1/config/groups/:groupId', 'GET /v1/config/audit', 'PUT /v1/config/retention', 'GET /v1/viewer/fields']) {
      assert.ok(walk.walked.has(route), `${route} was walked`);
    }
    assert.ok(walk.walked.size > 40, `routes walked: ${walk.walked.size}`);
    assert.ok(walk.refused > 40 && walk.allowed > 100, `refused ${walk.refused}, allowed ${walk.allowed}`);
    // Every route the server registers, but for those with credentials of their own, was walked.
    const declared = declaredPermissions(server.running.app);
    const notWalked = registeredRoutes(server.running.app).filter((route) => route !== 'OPTIONS *' && !walk.walked.has(route) && !['public', 'ingest'].includes(declared.get(route)!));
    assert.deepEqual(notWalked, []);
  });

  test('no API route is public: only sign-in, links with credentials of their own, health, metrics and the viewer files are', () => {
    const declared = declaredPermissions(server.running.app);
    const api = /^[A-Z]+ \/(v1|v2|ws)\//;
    const publicApi = [...declared].filter(([route, permission]) => api.test(route) && (permission === 'public' || permission === 'ingest')).map(([route]) => route);
    // The export download link is signed (the signature is its credential); OTLP's path is fixed
    // by the protocol, and takes an ingestion key like /logs/ingest.
    assert.deepEqual(publicApi.filter((route) => !route.endsWith(' /v1/export/download/:id') && route !== 'POST /v1/logs'), []);
    const ingest = [...declared].filter(([, permission]) => permission === 'ingest').map(([route]) => route);
    // The Elasticsearch API's bulk paths and the setup calls shippers make before them (src/ingest/elasticsearch) take the key too.
    const elastic = ['/_cluster/health', '/_nodes', '/_nodes/:filter', '/_nodes/:filter/:metric'].flatMap((path) => [`GET ${path}`, `HEAD ${path}`]);
    for (const path of ['/_component_template/:name', '/_ilm/policy/:name', '/_index_template/:name', '/_ingest/pipeline/:name', '/_template/:name']) elastic.push(`GET ${path}`, `HEAD ${path}`, `PUT ${path}`);
    elastic.push('HEAD /:index', 'PUT /:index', 'POST /_bulk', 'POST /:index/_bulk');
    assert.deepEqual(ingest.sort(), ['POST /logs/agent', 'POST /logs/agent/', 'POST /logs/ingest', 'POST /logs/ingest/', 'POST /loki/api/v1/push', 'POST /v1/logs', ...elastic].sort());
  });

  test("ingestion routes take an ingestion key, never a member's session or a service key", async () => {
    for (const [name, headers] of [
      ['admin session', people.admin!.headers(true)],
      ['owner session', people.owner!.headers(true)],
      ['service key', { apikey: server.org.serviceKey }],
    ] as const) {
      const reply = await request(`${server.url}/logs/ingest?hostname=walk`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ lines: [{ line: 'x' }] }) });
      assert.equal(reply.status, 401, `${name}: ${reply.text}`);
      const loki = { streams: [{ stream: { app: 'walk' }, values: [[`${Date.now()}000000`, 'x']] }] };
      const pushed = await request(`${server.url}/loki/api/v1/push`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(loki) });
      assert.equal(pushed.status, 401, `Loki push, ${name}: ${pushed.text}`);
    }
    const right = await request(`${server.url}/logs/ingest?hostname=walk`, { method: 'POST', headers: { apikey: server.org.ingestionKey, 'content-type': 'application/json' }, body: JSON.stringify({ lines: [{ line: 'x' }] }) });
    assert.equal(right.status, 200);
  });

  test('a signed download link needs its signature, whoever asks', async () => {
    const reply = await request(`${server.url}/v1/export/download/00000000-0000-0000-0000-000000000000?expires=${Date.now() + 60_000}`, { headers: people.owner!.headers() });
    assert.equal(reply.status, 403);
  });

  test('every state-changing route needs the CSRF token with a session, even the owner\'s; a key needs none', async () => {
    const declared = declaredPermissions(server.running.app);
    const changing = [...declared].filter(([route, permission]) => WRITES.has(route.split(' ')[0]) && !['public', 'ingest'].includes(permission));
    assert.ok(changing.length > 15, `state-changing routes: ${changing.length}`);
    const csrf = JSON.stringify(errors.csrfMismatch().body);
    for (const [route] of changing) {
      const [method, pattern] = route.split(' ');
      const { path } = realTarget(pattern);
      for (const token of [undefined, 'wrong-token']) {
        const headers: Record<string, string> = { cookie: people.owner!.cookie, 'content-type': 'application/json', ...(token ? { 'x-csrf-token': token } : {}) };
        const reply = await request(`${server.url}${path}`, { method, headers, body: method === 'DELETE' ? undefined : '{}' });
        assert.equal(reply.status, 403, `${route} with ${token ?? 'no'} token`);
        assert.equal(reply.text, csrf, route);
      }
    }
    // The e-mailed export is a GET that sends mail: it needs the token too.
    const mailed = await request(`${server.url}/v1/export?from=0&to=1&email=walk@example.com`, { headers: people.readonly!.headers() });
    assert.equal(mailed.status, 403);
    assert.equal(mailed.text, csrf);
    // The same change with a key, and with the token, goes through.
    assert.equal((await asKey('POST', '/v1/config/categories/views', { name: 'by key, no token' })).status, 200);
    assert.equal((await as(people.member!, 'POST', '/v1/config/categories/views', { name: 'by session, with token' })).status, 200);
  });

  test('without credentials every walked route answers 401', async () => {
    const declared = declaredPermissions(server.running.app);
    for (const [route, permission] of declared) {
      if (permission === 'public' || permission === 'ingest') continue;
      const [method, pattern] = route.split(' ');
      const reply = await fetch(`${server.url}${realTarget(pattern).path}`, { method, headers: WRITES.has(method) && method !== 'DELETE' ? { 'content-type': 'application/json' } : {}, body: WRITES.has(method) && method !== 'DELETE' ? '{}' : undefined });
      assert.equal(reply.status, 401, route);
    }
  });
});

describe('the walk follows the registered routes, not a list of its own', () => {
  /** A server with the real permission hook and routes added only here, with a role named by a header. */
  async function serverWith(routes: Array<{ method: 'GET' | 'POST'; url: string; permission: Permission }>, enforce: boolean) {
    const web = await createWebServer({ port: 0, host: '127.0.0.1', publicUrl: undefined, logLevel: 'silent', trustProxy: false, shutdownGraceMs: 1000 }, () => {});
    const auth = {
      async principal(request: { headers: Record<string, unknown> }) {
        const role = request.headers['x-test-role'];
        if (typeof role !== 'string' || !(ROLES as readonly string[]).includes(role)) throw errors.unauthorized();
        return { role: role as Role };
      },
    };
    const served = await web.serve({
      node: 0,
      guards: enforce ? [(app) => enforcePermissions(app, auth)] : [],
      routes: [async (app) => {
        for (const route of routes) app.route({ method: route.method, url: route.url, config: { permission: route.permission }, handler: async () => ({ ok: true }) });
      }],
    });
    return { app: web.app, url: served.url, close: () => served.close() };
  }
  const testCallers: Caller[] = ROLES.map((role) => ({ name: role, role, headers: () => ({ 'x-test-role': role }) }));
  const fresh = [
    { method: 'GET' as const, url: '/v1/config/brand-new', permission: 'admin' as const },
    { method: 'POST' as const, url: '/v1/config/brand-new/:id', permission: 'write' as const },
    { method: 'GET' as const, url: '/v1/brand-new-read', permission: 'read' as const },
    { method: 'POST' as const, url: '/v1/config/brand-new-owner', permission: 'owner' as const },
  ];

  test('a route registered only now is walked, with every role, and passes when the hook enforces its permission', async () => {
    const mini = await serverWith(fresh, true);
    try {
      const walk = await walkRoutes(mini.app, mini.url, testCallers, (pattern) => ({ path: pattern.replace(':id', 'x') }));
      for (const route of fresh) assert.equal(walk.walked.get(`${route.method} ${route.url}`), route.permission, `${route.method} ${route.url} was walked`);
      assert.deepEqual(walk.problems, []);
      // readonly is refused 3 of the 4, member 2, admin 1, owner none (HEAD copies of the GETs count too).
      assert.ok(walk.refused >= 6, `refused ${walk.refused}`);
    } finally {
      await mini.close();
    }
  });

  test('the walk fails on a server that does not enforce what its routes declare', async () => {
    const mini = await serverWith(fresh, false);
    try {
      const walk = await walkRoutes(mini.app, mini.url, testCallers, (pattern) => ({ path: pattern.replace(':id', 'x') }));
      assert.ok(walk.problems.some((problem) => problem.startsWith('readonly (readonly) GET /v1/config/brand-new [admin]: expected the role\'s 403')), walk.problems.join('\n'));
      assert.ok(walk.problems.some((problem) => problem.startsWith('admin (admin) POST /v1/config/brand-new-owner [owner]')), walk.problems.join('\n'));
    } finally {
      await mini.close();
    }
  });
});

describe('what each role may do, as the table says', () => {
  const preset = (name: string) => ({ name, channels: [{ integration: 'email', emails: ['oncall@example.com'], triggerlimit: 1, triggerinterval: '30', operator: 'presence', immediate: 'true' }] });
  const assertRefused = (reply: { status: number; json: any }, role: Role, needed: Role, what: string) => {
    assert.equal(reply.status, 403, `${role} may not ${what}`);
    assert.equal(reply.json.error, `Forbidden: your role (${role}) may not do this; it needs the ${needed} role or above.`, what);
  };

  test('readonly sees views, alerts, deliveries, usage and lines, and may create none of them', async () => {
    const readonly = people.readonly!;
    // Fresh ones: the walk above may have deleted the walked view and preset.
    const ownPreset = await asKey('POST', '/v1/config/presetalert', preset('seen preset'));
    const ownView = await asKey('POST', '/v1/config/view', { name: 'seen view', query: 'seen', presetid: ownPreset.json.presetid });
    assert.equal(ownView.status, 200, ownView.text);
    const views = await as(readonly, 'GET', '/v1/config/view');
    assert.equal(views.status, 200);
    assert.ok(views.json.some((view: { viewid: string }) => view.viewid === ownView.json.viewid), "the organisation's view is listed");
    const oneView = await as(readonly, 'GET', `/v1/config/view/${ownView.json.viewid}`);
    assert.equal(oneView.status, 200);
    assert.deepEqual(oneView.json.presetids, [ownPreset.json.presetid], 'with its alert');
    const presets = await as(readonly, 'GET', '/v1/config/presetalert');
    assert.equal(presets.status, 200);
    assert.ok(presets.json.some((found: { presetid: string }) => found.presetid === ownPreset.json.presetid));
    assert.equal((await as(readonly, 'GET', `/v1/config/presetalert/${ownPreset.json.presetid}`)).status, 200);
    for (const path of ['/v1/alerts/deliveries', '/v1/usage', '/v1/config/categories/views', `/v2/export?from=0&to=${Date.now()}`, `/v1/viewer/patterns?from=0&to=${Date.now()}`]) assert.equal((await as(readonly, 'GET', path)).status, 200, path);

    assertRefused(await as(readonly, 'POST', '/v1/config/view', { name: 'by readonly', query: 'x' }), 'readonly', 'member', 'create a view');
    assertRefused(await as(readonly, 'PUT', `/v1/config/view/${ownView.json.viewid}`, { name: 'renamed', query: 'x' }), 'readonly', 'member', 'edit a view');
    assertRefused(await as(readonly, 'DELETE', `/v1/config/view/${ownView.json.viewid}`), 'readonly', 'member', 'delete a view');
    assertRefused(await as(readonly, 'DELETE', `/v1/config/presetalert/${ownPreset.json.presetid}`), 'readonly', 'member', 'delete an alert');
    assertRefused(await as(readonly, 'POST', '/v1/config/presetalert', preset('by readonly')), 'readonly', 'member', 'create an alert');
    assertRefused(await as(readonly, 'POST', '/v1/config/categories/views', { name: 'by readonly' }), 'readonly', 'member', 'create a category');
    const after = await asKey('GET', '/v1/config/view');
    assert.ok(!after.text.includes('by readonly'), 'nothing was created');
    assert.equal((await asKey('GET', `/v1/config/view/${ownView.json.viewid}`)).json.name, 'seen view', 'the view is unchanged');
    assert.equal((await asKey('GET', `/v1/config/presetalert/${ownPreset.json.presetid}`)).status, 200, 'the alert is still there');
  });

  test('member creates, edits and deletes views, alerts, categories and presets, but not keys, members, groups, retention or audit', async () => {
    const member = people.member!;
    const preset = await as(member, 'POST', '/v1/config/presetalert', { name: 'by member', channels: [{ integration: 'email', emails: ['oncall@example.com'], triggerlimit: 1, triggerinterval: '30', operator: 'presence', immediate: 'true' }] });
    assert.equal(preset.status, 200, preset.text);
    const category = await as(member, 'POST', '/v1/config/categories/views', { name: 'member category' });
    assert.equal(category.status, 200, category.text);
    const view = await as(member, 'POST', '/v1/config/view', { name: 'by member', query: 'level:error', category: ['member category'], presetid: preset.json.presetid });
    assert.equal(view.status, 200, view.text);
    assert.equal((await as(member, 'PUT', `/v1/config/view/${view.json.viewid}`, { name: 'by member, renamed', query: 'level:warn' })).status, 200);
    assert.equal((await as(member, 'PUT', `/v1/config/presetalert/${preset.json.presetid}`, { name: 'renamed preset' })).status, 200);
    assert.equal((await as(member, 'PUT', `/v1/config/categories/views/${category.json.id}`, { name: 'renamed category' })).status, 200);
    assert.equal((await as(member, 'DELETE', `/v1/config/view/${view.json.viewid}`)).status, 200);
    assert.equal((await as(member, 'DELETE', `/v1/config/presetalert/${preset.json.presetid}`)).status, 200);
    assert.equal((await as(member, 'DELETE', `/v1/config/categories/views/${category.json.id}`)).status, 200);

    assertRefused(await as(member, 'POST', '/v1/config/keys?type=ingestion', { name: 'by member' }), 'member', 'admin', 'create a key');
    assertRefused(await as(member, 'GET', '/v1/config/keys'), 'member', 'admin', 'list keys');
    assertRefused(await as(member, 'POST', '/v1/config/members', { email: 'by-member@example.com', role: 'readonly' }), 'member', 'admin', 'invite a member');
    assertRefused(await as(member, 'GET', '/v1/config/members'), 'member', 'admin', 'list members');
    assertRefused(await as(member, 'POST', '/v1/config/groups', { name: 'by member' }), 'member', 'admin', 'create a group');
    assertRefused(await as(member, 'PUT', '/v1/config/retention', { days: 1 }), 'member', 'admin', 'set retention');
    assertRefused(await as(member, 'GET', '/v1/config/audit'), 'member', 'admin', 'read the audit trail');
    assert.equal((await asKey('GET', '/v1/config/members/by-member@example.com')).status, 404, 'no member was created');
  });

  test('admin manages keys, members, groups, retention and reads the audit trail', async () => {
    const admin = people.admin!;
    const created = await as(admin, 'POST', '/v1/config/keys?type=service', { name: 'by admin' });
    assert.equal(created.status, 200, created.text);
    assert.equal((await request(`${server.url}/v1/config/keys`, { headers: { servicekey: created.json.key } })).status, 200, "the admin's new key works");
    assert.equal((await as(admin, 'DELETE', `/v1/config/keys/${created.json.id}`)).status, 200);
    const group = await as(admin, 'POST', '/v1/config/groups', { name: 'admin group', access_scopes: 'app:admin' });
    assert.equal(group.status, 200, group.text);
    const member = await as(admin, 'POST', '/v1/config/members', { email: 'by-admin@example.com', role: 'member', groups: [group.json.id] });
    assert.equal(member.status, 200, member.text);
    assert.equal((await as(admin, 'PUT', '/v1/config/members/by-admin@example.com', { role: 'readonly' })).status, 200);
    assert.equal((await as(admin, 'DELETE', '/v1/config/members/by-admin@example.com')).status, 200);
    assert.equal((await as(admin, 'DELETE', `/v1/config/groups/${group.json.id}`)).status, 200);
    const retention = await as(admin, 'PUT', '/v1/config/retention', { days: 9 });
    assert.equal(retention.status, 200, retention.text);
    assert.equal(retention.json.retentionDays, 9);
    assert.equal((await as(admin, 'PUT', '/v1/config/retention', { days: null })).status, 200);
    const audit = await as(admin, 'GET', '/v1/config/audit?resource=member');
    assert.equal(audit.status, 200);
    assert.ok(audit.json.records.some((record: { actor: string; id: string }) => record.actor === admin.email && record.id === 'by-admin@example.com'));
  });

  test("admin may not give or take the owner role; the owner's own role stays with operators", async () => {
    const admin = people.admin!;
    const promote = await as(admin, 'PUT', `/v1/config/members/${encodeURIComponent(people.member!.email)}`, { role: 'owner' });
    assert.equal(promote.status, 400, promote.text);
    assertRefused(await as(admin, 'PUT', `/v1/config/members/${encodeURIComponent(people.owner!.email)}`, { role: 'readonly' }), 'admin', 'owner', "demote the owner");
    assertRefused(await as(admin, 'DELETE', `/v1/config/members/${encodeURIComponent(people.owner!.email)}`), 'admin', 'owner', 'remove the owner');
    assert.equal((await asKey('GET', `/v1/config/members/${encodeURIComponent(people.owner!.email)}`)).json.role, 'owner');
  });
});
