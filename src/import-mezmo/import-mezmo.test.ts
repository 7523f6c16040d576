import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type TestServer, eventually, request, startTestServer } from '../testing/harness.js';
import { BIN, type ServerProcess, serveProcess } from '../testing/process.js';
import { startHttpReceiver } from '../testing/receivers.js';
import { askServerToReloadConfig } from '../http/control-socket.js';
import { dropTestPostgres, testConfigDialect, testConfigEnv } from '../testing/config-database.js';

/** `logstead import-mezmo` run as users run it, against the target's installation; stdout's JSON Lines, parsed. */
async function runImport(target: { dataDir: string }, args: string[], command = 'import-mezmo'): Promise<{ code: number | null; lines: any[]; stderr: string }> {
  const child = spawn(process.execPath, [BIN, command, ...args], {
    env: { ...process.env, LOGSTEAD_DATA_DIR: target.dataDir, LOGSTEAD_PUBLIC_URL: 'https://logs.example.com', ...(await testConfigEnv(target.dataDir)) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const lines = stdout.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line));
  return { code, lines, stderr };
}

/** The configuration API, as a Mezmo client calls it, with a service key. */
async function api(url: string, key: string, method: string, pathname: string, body?: unknown) {
  const reply = await request(`${url}${pathname}`, {
    method,
    headers: { servicekey: key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  assert.equal(reply.status, 200, `${method} ${pathname}: ${reply.text}`);
  return reply.json;
}

const byName = (items: any[], name: string): any => items.find((item) => item.name === name);
const names = (items: Array<{ kind: string; name: string }>) => items.map((item) => `${item.kind}:${item.name}`).sort();

describe('import-mezmo', () => {
  let target: TestServer;
  let receiver: Awaited<ReturnType<typeof startHttpReceiver>>;

  before(async () => {
    receiver = await startHttpReceiver();
    target = await startTestServer({ LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS: 'true' });
  });
  after(async () => {
    await target?.close();
    await receiver?.close();
  });

  describe('from a second Logstead server', () => {
    const sourceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-import-source-'));
    let source: ServerProcess;
    let sourceKey: string;
    let source2: { url: string; key: string };

    before(async () => {
      source = await serveProcess(sourceDir, await testConfigEnv(sourceDir));
      sourceKey = JSON.parse(fs.readFileSync(path.join(sourceDir, 'initial-credentials.json'), 'utf8')).serviceKey;
      source2 = { url: source.url, key: sourceKey };
      const call = (method: string, pathname: string, body?: unknown) => api(source.url, sourceKey, method, pathname, body);
      await call('POST', '/v1/config/categories/views', { name: 'Payments' });
      await call('POST', '/v1/config/categories/boards', { name: 'Ops boards' });
      await call('POST', '/v1/config/board', {
        name: 'Ops overview',
        category: 'Ops boards',
        graphs: [
          { title: 'Errors by app', query: 'level:error', measure: { type: 'count' }, breakdown: { field: 'app', limit: 5 } },
          { title: 'p95 response time', apps: ['nginx'], measure: { type: 'p95', field: 'request_time' } },
        ],
      });
      const support = await call('POST', '/v1/config/groups', { name: 'Support', access_scopes: 'app:web' });
      const pager = await call('POST', '/v1/config/presetalert', {
        name: 'Pager',
        channels: [{ integration: 'webhook', url: `${receiver.url}/preset`, triggerlimit: 5, triggerinterval: '5m', immediate: false, terminal: true }],
      });
      await call('POST', '/v1/config/view', {
        name: 'Errors',
        query: 'level:error',
        category: ['Payments'],
        channels: [
          { integration: 'webhook', url: `${receiver.url}/errors`, method: 'post', triggerlimit: 1, triggerinterval: '30', immediate: true, terminal: false, bodyTemplate: { view: '{{name}}' } },
          { integration: 'email', emails: ['ops@example.com'], triggerlimit: 10, triggerinterval: '1h', immediate: false, terminal: true, timezone: 'Europe/Berlin' },
        ],
      });
      await call('POST', '/v1/config/view', { name: 'With preset', apps: ['api'], presetid: pager.presetid });
      await call('POST', '/v1/config/members', { email: 'ann@example.com', role: 'admin', groups: [support.id] });
      await call('POST', '/v1/config/members', { email: 'bob@example.com', role: 'readonly' });
      await call('POST', '/v1/config/ingestion/exclusions', { title: 'Health checks', active: true, indexonly: false, apps: ['lb'], query: 'GET /health' });
      await call('PUT', '/v1/config/index-rate', { max_lines: 500_000, threshold_alert: 'separate', frequency: 'hourly', enabled: true, channels: { email: ['rate@example.com'] } });
    });
    after(async () => {
      if (source) {
        process.kill(-source.child.pid!, 'SIGTERM');
        await new Promise((resolve) => source.child.once('exit', resolve));
      }
      fs.rmSync(sourceDir, { recursive: true, force: true });
      if (testConfigDialect === 'postgres') await dropTestPostgres(sourceDir);
    });

    const args = () => ['--url', source2.url, '--service-key', source2.key, '--account', target.org.account];
    const local = (pathname: string) => api(target.url, target.org.serviceKey, 'GET', pathname);

    test('--dry-run prints the plan and writes nothing', async () => {
      const run = await runImport(target, [...args(), '--dry-run']);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.lines.length, 1, 'only the plan');
      const { plan } = run.lines[0];
      assert.equal(plan.dryRun, true);
      assert.equal(plan.account, target.org.account);
      assert.deepEqual(names(plan.create), [
        'board:Ops overview', 'category:boards/Ops boards', 'category:views/Payments', 'exclusion:Health checks', 'group:Support', 'index-rate:index-rate alert', 'member:ann@example.com',
        'member:bob@example.com', 'preset:Pager', 'view:Errors', 'view:With preset',
      ]);
      assert.deepEqual(plan.update, []);
      assert.deepEqual(plan.notCarriedOver, []);
      assert.deepEqual(await local('/v1/config/view'), []);
      assert.deepEqual(await local('/v1/config/presetalert'), []);
      assert.deepEqual(await local('/v1/config/categories/views'), []);
      assert.deepEqual(await local('/v1/config/groups'), []);
      assert.deepEqual(await local('/v1/config/members'), []);
      assert.deepEqual(await local('/v1/config/ingestion/exclusions'), []);
      assert.equal((await local('/v1/config/index-rate')).enabled, false);
    });

    test('the import creates everything, and the running server alerts on an imported view at once', async () => {
      const run = await runImport(target, args());
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.lines.length, 2);
      const { result } = run.lines[1];
      assert.equal(result.created, 11);
      assert.equal(result.updated, 0);
      assert.deepEqual(result.failed, []);
      assert.equal(result.server, 'notified');
      assert.deepEqual(result.links.map((link: { email: string }) => link.email).sort(), ['ann@example.com', 'bob@example.com']);
      for (const { link } of result.links) assert.match(link, /^https:\/\/logs\.example\.com\/password\?token=/);

      const views = await local('/v1/config/view');
      assert.deepEqual(views.map((view: { name: string }) => view.name).sort(), ['Errors', 'With preset']);
      const errorsView = byName(views, 'Errors');
      assert.equal(errorsView.query, 'level:error');
      assert.deepEqual(errorsView.category, ['Payments']);
      assert.equal(errorsView.channels.length, 2);
      assert.deepEqual(JSON.parse(errorsView.channels[0].bodyTemplate), { view: '{{name}}' });
      assert.equal(errorsView.channels[1].timezone, 'Europe/Berlin');
      const presets = await local('/v1/config/presetalert');
      assert.equal(presets.length, 1);
      const withPreset = byName(views, 'With preset');
      assert.deepEqual(withPreset.presetids, [presets[0].presetid]);
      assert.equal(withPreset.channels.length, 1, 'the preset\'s channel, not a copy of it on the view');
      assert.deepEqual((await local('/v1/config/categories/boards')).map((category: { name: string }) => category.name), ['Ops boards']);
      const [board] = await local('/v1/config/board');
      const [sourceBoard] = await api(source2.url, source2.key, 'GET', '/v1/config/board');
      assert.equal(board.name, 'Ops overview');
      assert.equal(board.category, 'Ops boards');
      assert.deepEqual(board.graphs, sourceBoard.graphs, 'every graph, with its id');
      const audited = await local('/v1/config/audit?resource=board');
      assert.deepEqual(audited.records.map((record: { action: string; actor: string; id: string }) => [record.action, record.actor, record.id]), [['board.create', 'operator (import-mezmo)', board.boardId]]);
      const groups = await local('/v1/config/groups');
      assert.equal(groups.length, 1);
      assert.equal(groups[0].access_scopes, 'app:web');
      const members = await local('/v1/config/members');
      const ann = members.find((member: { email: string }) => member.email === 'ann@example.com');
      assert.equal(ann.role, 'admin');
      assert.deepEqual(ann.groups, [groups[0].id]);
      const [exclusion] = await local('/v1/config/ingestion/exclusions');
      assert.deepEqual(
        { title: exclusion.title, active: exclusion.active, indexonly: exclusion.indexonly, apps: exclusion.apps, query: exclusion.query },
        { title: 'Health checks', active: true, indexonly: false, apps: ['lb'], query: 'GET /health' },
      );
      const rate = await local('/v1/config/index-rate');
      assert.deepEqual([rate.enabled, rate.max_lines, rate.frequency, rate.channels.email], [true, 500_000, 'hourly', ['rate@example.com']]);

      // Written by another process: the server (embedded, without shared-database reloads) knows only through its control socket.
      const ingest = await request(`${target.url}/logs/ingest?hostname=web-1`, {
        method: 'POST',
        headers: { apikey: target.org.ingestionKey, 'content-type': 'application/json' },
        body: JSON.stringify({ lines: [{ line: 'payment failed', app: 'pay', level: 'error' }] }),
      });
      assert.equal(ingest.status, 200, ingest.text);
      const delivered = await eventually(() => receiver.received.find((received) => received.path === '/errors'), 15_000, 'the imported view\'s webhook');
      assert.match(delivered.body, /Errors/);
    });

    test('a second run updates instead of duplicating', async () => {
      const before = { views: await local('/v1/config/view'), presets: await local('/v1/config/presetalert') };
      // A change at the source comes over on the next run.
      const sourceViews = await api(source2.url, source2.key, 'GET', '/v1/config/view');
      const errorsAtSource = byName(sourceViews, 'Errors');
      await api(source2.url, source2.key, 'PUT', `/v1/config/view/${errorsAtSource.viewid}`, { ...errorsAtSource, query: 'level:error OR level:fatal' });

      const run = await runImport(target, args());
      assert.equal(run.code, 0, run.stderr);
      const [{ plan }, { result }] = run.lines;
      assert.deepEqual(plan.create, []);
      assert.deepEqual(names(plan.update), ['view:Errors'], 'only what changed at the source');
      assert.deepEqual(names(plan.keep), [
        'board:Ops overview', 'category:boards/Ops boards', 'category:views/Payments', 'exclusion:Health checks', 'group:Support', 'index-rate:index-rate alert', 'member:ann@example.com',
        'member:bob@example.com', 'preset:Pager', 'view:With preset',
      ]);
      assert.equal(result.created, 0);
      assert.equal(result.updated, 1);
      assert.deepEqual(result.links, []);

      const views = await local('/v1/config/view');
      assert.equal(views.length, 2);
      assert.equal(byName(views, 'Errors').query, 'level:error OR level:fatal');
      // Unchanged alerts keep their ids, so their windows carry on.
      assert.deepEqual(byName(views, 'Errors').channels.map((channel: { alertid: string }) => channel.alertid), byName(before.views, 'Errors').channels.map((channel: { alertid: string }) => channel.alertid));
      const presets = await local('/v1/config/presetalert');
      assert.deepEqual(presets.map((preset: { presetid: string }) => preset.presetid), before.presets.map((preset: { presetid: string }) => preset.presetid));
      assert.equal((await local('/v1/config/categories/views')).length, 1);
      assert.equal((await local('/v1/config/groups')).length, 1);
      assert.equal((await local('/v1/config/members')).length, 2);

      // A third run against the same source has nothing to do.
      const third = await runImport(target, args());
      assert.equal(third.code, 0, third.stderr);
      assert.deepEqual(third.lines[0].plan.create, []);
      assert.deepEqual(third.lines[0].plan.update, []);
      assert.deepEqual(third.lines[1].result, { created: 0, updated: 0, failed: [], links: [], server: 'nothing written' });
    });

    test('into an installation whose server is not running (made with `org create`)', async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-import-stopped-'));
      try {
        const created = await runImport({ dataDir }, ['create', 'Imported'], 'org');
        assert.equal(created.code, 0, created.stderr);
        const [org] = created.lines;
        const run = await runImport({ dataDir }, ['--url', source2.url, '--service-key', source2.key, '--account', org.account]);
        assert.equal(run.code, 0, run.stderr);
        const { result } = run.lines[1];
        assert.equal(result.created, 11);
        assert.equal(result.server, 'not running');
        const again = await runImport({ dataDir }, ['--url', source2.url, '--service-key', source2.key, '--account', org.account, '--dry-run']);
        assert.deepEqual(again.lines[0].plan.create, []);
        assert.deepEqual(again.lines[0].plan.update, []);
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
        if (testConfigDialect === 'postgres') await dropTestPostgres(dataDir);
      }
    });

    test('an unknown organisation or a refused key is an error, and nothing is written', async () => {
      const unknown = await runImport(target, ['--url', source2.url, '--service-key', source2.key, '--account', 'no-such-org']);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /No organisation has the account id "no-such-org"/);
      const refused = await runImport(target, ['--url', source2.url, '--service-key', 'wrong', '--account', target.org.account]);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /refused the service key/);
      const usage = await runImport(target, ['--url', source2.url]);
      assert.equal(usage.code, 1);
      assert.match(usage.stderr, /Usage: logstead import-mezmo/);
    });
  });

  test('the control socket reloads an organisation it knows, and refuses one it does not', async () => {
    const known = await askServerToReloadConfig(target.dataDir, target.org.account);
    assert.deepEqual(known, { running: true, status: 200, body: { reloaded: true } });
    const unknown = await askServerToReloadConfig(target.dataDir, 'no-such-org');
    assert.equal(unknown.running, true);
    assert.equal(unknown.running && unknown.status, 404);
    const noServer = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-import-none-'));
    assert.deepEqual(await askServerToReloadConfig(noServer, target.org.account), { running: false });
    fs.rmSync(noServer, { recursive: true, force: true });
  });

  test('a source that answers /v1/config/board: its boards come, each graph checked alone, a change comes on the next run', async () => {
    const answers: Record<string, unknown> = {
      '/v1/config/categories/views': [],
      '/v1/config/categories/boards': [{ id: 'c9', name: 'Mezmo boards', type: 'boards' }],
      '/v1/config/categories/screens': [],
      '/v1/config/board': [
        {
          boardid: 'b1', title: 'Checkout board', category: ['Mezmo boards'], pinned: true,
          graphs: [
            { title: 'Lines by app', measure: { type: 'count' }, breakdown: { field: 'app', limit: 3 }, color: 'blue' },
            { title: 'A pie', type: 'pie', query: 'app:checkout' },
            { title: 'Broken', query: 'level:((', measure: { type: 'count' } },
          ],
        },
        { boardid: 'b2', title: 'Elsewhere', category: 'Gone' },
      ],
    };
    const fixture = http.createServer((req, res) => {
      const answer = answers[req.url!];
      res.setHeader('content-type', 'application/json');
      res.statusCode = answer === undefined ? 404 : 200;
      res.end(JSON.stringify(answer ?? { error: 'Resource Not Found' }));
    });
    await new Promise<void>((resolve) => fixture.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(fixture.address() as AddressInfo).port}`;
    try {
      const org = await target.createOrg('boards from mezmo');
      const importArgs = ['--url', url, '--service-key', 'mezmo-key', '--account', org.account];
      const run = await runImport(target, importArgs);
      assert.equal(run.code, 0, run.stderr);
      const [{ plan }, { result }] = run.lines;
      assert.deepEqual(names(plan.create), ['board:Checkout board', 'board:Elsewhere', 'category:boards/Mezmo boards']);
      const reasons = plan.notCarriedOver.filter((entry: { kind: string }) => entry.kind === 'board').map((entry: { name: string; part?: string; reason: string }) => `${entry.name}:${entry.part ?? '*'}: ${entry.reason}`).sort();
      assert.deepEqual(reasons, [
        'Checkout board:graph 1 (Lines by app): color: Logstead graphs have no such settings',
        'Checkout board:graph 2 (A pie): "measure" is required',
        'Checkout board:graph 3 (Broken): "query" is not a valid search: Invalid query at position 8: expected a term, found the end of the query.',
        'Checkout board:pinned: Logstead boards have no such field',
        'Elsewhere:category "Gone": the source did not list this category, or it is not carried over',
      ]);
      assert.equal(result.created, 3);
      const boards = await api(target.url, org.serviceKey, 'GET', '/v1/config/board');
      const checkout = byName(boards, 'Checkout board');
      assert.equal(checkout.category, 'Mezmo boards');
      assert.deepEqual(checkout.graphs.map((graph: { title: string }) => graph.title), ['Lines by app']);
      assert.deepEqual(checkout.graphs[0].breakdown, { field: 'app', limit: 3 });
      assert.equal(byName(boards, 'Elsewhere').category, null);

      // Unchanged, a board is kept, its graph's id too; changed at the source, it is updated in place.
      const again = await runImport(target, importArgs);
      assert.deepEqual(names(again.lines[0].plan.keep), ['board:Checkout board', 'board:Elsewhere', 'category:boards/Mezmo boards']);
      (answers['/v1/config/board'] as any[])[0].graphs[0].measure = { type: 'unique', field: 'host' };
      const changed = await runImport(target, importArgs);
      assert.deepEqual(names(changed.lines[0].plan.update), ['board:Checkout board']);
      const after = byName(await api(target.url, org.serviceKey, 'GET', '/v1/config/board'), 'Checkout board');
      assert.equal(after.boardId, checkout.boardId);
      assert.equal(after.graphs[0].graphId, checkout.graphs[0].graphId);
      assert.deepEqual(after.graphs[0].measure, { type: 'unique', field: 'host' });
    } finally {
      await new Promise((resolve) => fixture.close(resolve));
    }
  });

  test('a Mezmo-shaped source: what Logstead lacks is reported, the rest comes', async () => {
    const headers: string[] = [];
    const answers: Record<string, unknown> = {
      '/v1/config/categories/views': [{ id: 'c1', name: 'Mezmo views', type: 'views' }],
      '/v1/config/categories/boards': [],
      '/v1/config/categories/screens': [],
      '/v1/config/presetalert': [
        { presetid: 'p1', name: 'Only Slack', account: 'm1', _created: 1, _modified: 1, channels: [{ alertid: 'pa1', integration: 'slack', url: 'https://hooks.slack.com/services/x', triggerlimit: 1, triggerinterval: '30', immediate: true, terminal: false, color: '#d4b135' }] },
      ],
      '/v1/config/view': [
        {
          viewid: 'v1', name: 'Checkout', query: 'app:checkout', hosts: [], apps: [], levels: [], tags: [], category: ['Mezmo views', 'Gone'], presetids: ['p1'], account: 'm1', orgs: [], description: '', pinned: true,
          channels: [
            { alertid: 'pa1', integration: 'slack', url: 'https://hooks.slack.com/services/x', triggerlimit: 1, triggerinterval: '30', immediate: true, terminal: false, color: '#d4b135' },
            { alertid: 'a2', integration: 'pagerduty', key: 'pd-key', triggerlimit: 1, triggerinterval: '30', immediate: 'true', terminal: 'false', autoresolve: true, autoresolveinterval: '15m', autoresolvelimit: 5 },
            { alertid: 'a3', integration: 'email', emails: 'oncall@example.com', triggerlimit: 3, triggerinterval: '5m', immediate: false, terminal: true, timezone: '' },
            { alertid: 'a4', integration: 'webhook', url: 'not a url', triggerlimit: 1, triggerinterval: '30', immediate: true, terminal: false },
            { alertid: 'a5', integration: 'opsgenie', key: 'og', region: 'eu', triggerlimit: 1, triggerinterval: '30', immediate: true, terminal: false },
            { alertid: 'a6', integration: 'victorops', key: 'vo', routingkey: 'payments', triggerlimit: 1, triggerinterval: '30', immediate: true, terminal: false, autoresolve: true, autoresolveinterval: '15m', autoresolvelimit: 5 },
            { alertid: 'a7', integration: 'datadog', key: 'dd', triggerlimit: 1, triggerinterval: '30', immediate: true, terminal: false },
          ],
        },
        { viewid: 'v2', name: 'Broken', query: 'level:((', presetids: [], channels: [] },
        { viewid: 'v3', name: 'Checkout', query: 'app:other', presetids: [], channels: [] },
      ],
      '/v1/config/members': [
        { email: 'Owner@Example.com', role: 'owner', groups: [] },
        { email: 'viewer@example.com', role: 'readonly', groups: ['g-unknown'] },
      ],
    };
    const fixture = http.createServer((req, res) => {
      headers.push(String(req.headers.servicekey));
      const answer = answers[req.url!];
      res.setHeader('content-type', 'application/json');
      if (answer === undefined) {
        res.statusCode = 404;
        res.end(JSON.stringify({ error: 'Resource Not Found', code: 'NotFound', status: 'error' }));
      } else {
        res.end(JSON.stringify(answer));
      }
    });
    await new Promise<void>((resolve) => fixture.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(fixture.address() as AddressInfo).port}`;
    try {
      const org = await target.createOrg('from mezmo');
      const run = await runImport(target, ['--url', url, '--service-key', 'mezmo-key', '--account', org.account]);
      assert.equal(run.code, 0, run.stderr);
      assert.ok(headers.length > 0 && headers.every((key) => key === 'mezmo-key'), 'the service key goes in the servicekey header');
      const [{ plan }, { result }] = run.lines;
      assert.deepEqual(names(plan.create), ['category:views/Mezmo views', 'member:owner@example.com', 'member:viewer@example.com', 'preset:Only Slack', 'view:Checkout']);
      const reasons = plan.notCarriedOver.map((entry: { kind: string; name: string; part?: string; reason: string }) => `${entry.kind}:${entry.name}:${entry.part ?? '*'}: ${entry.reason}`);
      const expect = (pattern: RegExp) => assert.ok(reasons.some((reason: string) => pattern.test(reason)), `${pattern} in\n${reasons.join('\n')}`);
      expect(/^group:\*:\*: the source could not be read: GET \/v1\/config\/groups answered 404: Resource Not Found/);
      expect(/^view:Checkout:channel 1 \(pagerduty\): autoresolve, autoresolveinterval, autoresolvelimit: Logstead channels have no such settings/);
      expect(/^view:Checkout:channel 3 \(webhook\): "url" must be a valid uri/);
      expect(/^view:Checkout:channel 6 \(datadog\): Logstead has no "datadog" integration/);
      assert.ok(!reasons.some((reason: string) => /\((slack|opsgenie|victorops)\)/.test(reason)), `Slack, OpsGenie and VictorOps channels come whole:\n${reasons.join('\n')}`);
      expect(/^view:Checkout:category "Gone": /);
      expect(/^view:Checkout:pinned: Logstead views have no such field/);
      expect(/^view:Broken:\*: "query" is not a valid search/);
      expect(/^view:Checkout:\*: another view in the source has the same name/);
      expect(/^member:owner@example.com:role owner: .*imported as admin/);
      expect(/^member:viewer@example.com:group "g-unknown": /);
      // The boards path answered 404: the source has no boards, which is not a failure to read them.
      assert.ok(!reasons.some((reason: string) => reason.startsWith('board:')), reasons.join('\n'));
      assert.equal(result.created, 5);
      assert.deepEqual(result.failed, []);

      const views = await api(target.url, org.serviceKey, 'GET', '/v1/config/view');
      assert.equal(views.length, 1);
      const [checkout] = views;
      assert.deepEqual(checkout.category, ['Mezmo views']);
      assert.equal(checkout.presetids.length, 1, 'its preset alert comes, with its Slack channel');
      assert.deepEqual(checkout.channels.map((channel: { integration: string }) => channel.integration), ['pagerduty', 'email', 'opsgenie', 'victorops', 'slack']);
      assert.equal(checkout.channels[4].color, '#d4b135');
      assert.equal(checkout.channels[2].region, 'eu');
      assert.deepEqual([checkout.channels[3].routingkey, checkout.channels[3].autoresolve, checkout.channels[3].autoresolveinterval, checkout.channels[3].autoresolvelimit], ['payments', true, '15m', 5]);
      assert.deepEqual(checkout.channels[1].emails, ['oncall@example.com']);
      const members = await api(target.url, org.serviceKey, 'GET', '/v1/config/members');
      assert.deepEqual(members.map((member: { email: string; role: string }) => `${member.email}:${member.role}`), ['owner@example.com:admin', 'viewer@example.com:readonly']);
    } finally {
      await new Promise((resolve) => fixture.close(resolve));
    }
  });
});
