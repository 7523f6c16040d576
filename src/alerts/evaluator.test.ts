import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { Accounts } from '../accounts/accounts.js';
import { withAlertIds, type Channel } from '../views/channels.js';
import { sql } from 'kysely';
import { AlertState } from './alert-state.js';
import type { ConfigDatabase, ConfigKysely } from '../repository/open.js';
import { openTestConfig } from '../testing/config-database.js';
import { Presets } from '../views/presets.js';
import { Members } from '../people/members.js';
import { Views } from '../views/views.js';
import type { StoredLine } from '../store/types.js';
import { type AlertEvent, AlertEvaluator } from './evaluator.js';
import { AlertRules } from './rules.js';

/** Window logic with an injected clock: no test sleeps through a real interval. */
let dir: string;
let config: Awaited<ReturnType<typeof openTestConfig>>;
let database: ConfigDatabase;
let db: ConfigKysely;
let account: string;
let views: Views;
let presets: Presets;
let rules: AlertRules;
let clock: number;
let fired: AlertEvent[];

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 10, 22, 12, 0, 0); // on a window boundary for every interval

/** A fresh evaluator, as after a restart (or on another node): it keeps nothing but what the database holds. */
function evaluator() {
  return new AlertEvaluator(new AlertState(db), rules, async (event) => void fired.push(event), () => clock);
}

const count = async (table: 'alert_fires' | 'alert_windows') => Number((await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(db)).rows[0].n);

function line(text: string, app = 'api'): StoredLine {
  return { account, ts: clock, id: String(clock), batch_id: 'b', host: 'web-1', app, level: 'ERROR', env: '', file: '', ip: '', mac: '', tags: [], line: text, logtype: 'text', fields: '', meta: '', meta_indexed: false, extra: '', size: text.length };
}

async function view(channels: Array<Partial<Channel>>, filters = { query: 'timeout' }) {
  const full = channels.map((channel) => ({ integration: 'webhook', url: 'http://x', method: 'post', triggerlimit: 3, triggerinterval: '1m', operator: 'presence', immediate: true, terminal: false, ...channel })) as Channel[];
  return await views.create(account, { name: 'v', filters, categoryIds: [], presetid: null, channels: withAlertIds(full), accessScope: null, savedBy: null });
}

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-alerts-'));
  config = await openTestConfig(dir);
  database = config.database;
  db = database.db;
  account = (await new Accounts(db).createAccount('a')).account;
  views = new Views(db);
  presets = new Presets(db);
  rules = new AlertRules(views, presets, new Members(db));
  await rules.load();
  clock = T0;
  fired = [];
});
afterEach(async () => {
  await config.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('presence + immediate fires once per window, as soon as the count reaches the limit', async () => {
  await view([{ triggerlimit: 3 }]);
  const alerts = evaluator();
  await alerts.observe(account, [line('timeout 1'), line('timeout 2'), line('no match')]);
  assert.equal(fired.length, 0);
  clock += 1000;
  await alerts.observe(account, [line('timeout 3')]);
  assert.equal(fired.length, 1);
  assert.equal(fired[0].kind, 'immediate');
  assert.equal(fired[0].matches, 3);
  assert.deepEqual(fired[0].samples.map((sample) => sample._line), ['timeout 1', 'timeout 2', 'timeout 3']);
  await alerts.observe(account, [line('timeout 4'), line('timeout 5'), line('timeout 6')]);
  assert.equal(fired.length, 1, 'not twice in one window');
  clock = T0 + MINUTE + 5;
  await alerts.observe(account, [line('timeout a'), line('timeout b'), line('timeout c')]);
  assert.equal(fired.length, 2, 'again in the next window');
  assert.equal(fired[1].windowStart, T0 + MINUTE);
});

test('presence + terminal fires at the end of the window if the count reached the limit', async () => {
  await view([{ triggerlimit: 2, immediate: false, terminal: true }]);
  const alerts = evaluator();
  await alerts.observe(account, [line('timeout'), line('timeout'), line('timeout')]);
  await alerts.tick();
  assert.equal(fired.length, 0, 'not before the window ends');
  clock = T0 + MINUTE;
  await alerts.tick();
  assert.equal(fired.length, 1);
  assert.deepEqual([fired[0].kind, fired[0].matches, fired[0].windowStart, fired[0].windowEnd], ['terminal', 3, T0, T0 + MINUTE]);
  await alerts.tick();
  clock += MINUTE;
  await alerts.tick();
  assert.equal(fired.length, 1, 'an empty window does not fire');
});

test('presence with both: terminal does not fire again after immediate in the same window', async () => {
  await view([{ triggerlimit: 2, immediate: true, terminal: true }]);
  const alerts = evaluator();
  await alerts.observe(account, [line('timeout'), line('timeout')]);
  clock = T0 + MINUTE;
  await alerts.tick();
  assert.deepEqual(fired.map((event) => event.kind), ['immediate']);
});

test('presence below the limit does not fire', async () => {
  await view([{ triggerlimit: 5, immediate: true, terminal: true }]);
  const alerts = evaluator();
  await alerts.observe(account, [line('timeout'), line('timeout')]);
  clock = T0 + MINUTE;
  await alerts.tick();
  assert.equal(fired.length, 0);
});

test('absence fires at the end of a window under the limit, only while the view is active', async () => {
  await view([{ operator: 'absence', triggerlimit: 5, immediate: false, terminal: true }]);
  const alerts = evaluator();
  clock = T0 + MINUTE + 10;
  await alerts.tick();
  clock = T0 + 3 * MINUTE;
  await alerts.tick();
  assert.equal(fired.length, 0, 'a view that never had lines is idle: no absence alert');

  clock = T0 + 3 * MINUTE + 1000;
  await alerts.observe(account, [line('timeout')]);
  clock = T0 + 4 * MINUTE;
  await alerts.tick();
  assert.deepEqual(fired.map((event) => [event.kind, event.matches]), [['absence', 1]]);
  clock = T0 + 5 * MINUTE;
  await alerts.tick();
  assert.equal(fired.length, 2, 'still active: an empty window fires too');

  const windowsFired = fired.length;
  clock = T0 + 3 * MINUTE + 25 * 3_600_000; // more than a day after the last line
  await alerts.tick();
  clock += MINUTE;
  await alerts.tick();
  assert.ok(fired.length <= windowsFired + 1, 'at most the window that was open when the view went idle');
  const afterIdle = fired.length;
  clock += MINUTE;
  await alerts.tick();
  assert.equal(fired.length, afterIdle, 'an idle view stops firing');
});

test('absence enough lines does not fire', async () => {
  await view([{ operator: 'absence', triggerlimit: 2, immediate: false, terminal: true }]);
  const alerts = evaluator();
  await alerts.observe(account, [line('timeout'), line('timeout')]);
  clock = T0 + MINUTE;
  await alerts.tick();
  assert.equal(fired.length, 0);
});

test('window state survives a restart: no lost window and no double fire', async () => {
  await view([{ triggerlimit: 3, immediate: true, terminal: false }, { triggerlimit: 3, immediate: false, terminal: true }]);
  let alerts = evaluator();
  await alerts.observe(account, [line('timeout'), line('timeout')]);
  alerts = evaluator(); // a crash and a restart: only what was persisted remains
  await alerts.observe(account, [line('timeout')]);
  assert.deepEqual(fired.map((event) => [event.kind, event.matches]), [['immediate', 3]], 'the count carried over');
  alerts = evaluator();
  await alerts.observe(account, [line('timeout')]);
  assert.equal(fired.length, 1, 'immediate does not fire again in the same window');
  clock = T0 + 10 * MINUTE; // the server was down when the window ended
  alerts = evaluator();
  await alerts.tick();
  assert.deepEqual(fired.map((event) => [event.kind, event.matches]), [['immediate', 3], ['terminal', 4]]);
  alerts = evaluator();
  await alerts.tick();
  assert.equal(fired.length, 2, 'the closed window is not closed twice');
});

test('a fire already recorded is not handed out again', async () => {
  await view([{ triggerlimit: 1, immediate: true }]);
  const alerts = evaluator();
  await alerts.observe(account, [line('timeout')]);
  // Lose the in-memory and stored "fired" flag, as if the state write had been rolled back.
  await sql`UPDATE alert_windows SET fired_immediate = 0`.execute(db);
  await evaluator().observe(account, [line('timeout')]);
  assert.equal(fired.length, 1);
  assert.equal(await count('alert_fires'), 1);
});

test('a changed view changes its alerts at once; a deleted one stops them', async () => {
  const created = await view([{ triggerlimit: 2 }]);
  const alerts = evaluator();
  await alerts.observe(account, [line('timeout')]);
  await views.replace(account, created.viewid, { name: 'v', filters: { query: 'disk' }, categoryIds: [], presetid: null, channels: withAlertIds([{ integration: 'webhook', url: 'http://x', method: 'post', triggerlimit: 1, triggerinterval: '1m', operator: 'presence', immediate: true, terminal: false }]), accessScope: null, savedBy: null });
  await alerts.observe(account, [line('timeout')]);
  assert.equal(fired.length, 0, 'the old query no longer counts');
  await alerts.observe(account, [line('disk full')]);
  assert.equal(fired.length, 1);
  await alerts.tick();
  assert.equal(await count('alert_windows'), 1, 'the old channel state is forgotten');
  await views.delete(account, created.viewid);
  clock += MINUTE;
  await alerts.observe(account, [line('disk full')]);
  assert.equal(fired.length, 1);
});

test('a preset attached to a view fires with that view\'s matches, separately per view', async () => {
  const preset = await presets.create(account, 'p', withAlertIds([{ integration: 'webhook', url: 'http://x', method: 'post', triggerlimit: 2, triggerinterval: '1m', operator: 'presence', immediate: true, terminal: false }]));
  for (const query of ['timeout', 'disk']) {
    await views.create(account, { name: query, filters: { query }, categoryIds: [], presetid: preset.presetid, channels: [], accessScope: null, savedBy: null });
  }
  const alerts = evaluator();
  await alerts.observe(account, [line('timeout'), line('disk'), line('timeout')]);
  assert.deepEqual(fired.map((event) => [event.viewName, event.presetid, event.matches]), [['timeout', preset.presetid, 2]]);
});

test('filters combine: any of a list, all of the lists', async () => {
  await view([{ triggerlimit: 1 }], { apps: ['api', 'worker'], levels: ['error'] } as never);
  const alerts = evaluator();
  await alerts.observe(account, [line('x', 'web')]);
  assert.equal(fired.length, 0);
  await alerts.observe(account, [line('x', 'worker')]);
  assert.equal(fired.length, 1);
});

// The trigger limit is inclusive (compat reference §6.2): exactly `triggerlimit` matches fire, one fewer does not.
const LIMIT = 4;
const lines = (count: number) => Array.from({ length: count }, (_, i) => line(`timeout ${i}`));

test('presence + terminal fires when exactly triggerlimit lines matched, and not at one fewer', async () => {
  await view([{ triggerlimit: LIMIT, immediate: false, terminal: true }]);
  const alerts = evaluator();
  await alerts.observe(account, lines(LIMIT));
  clock = T0 + MINUTE;
  await alerts.tick();
  assert.deepEqual(fired.map((event) => [event.kind, event.matches]), [['terminal', LIMIT]], 'exactly the limit fires');
  await alerts.observe(account, lines(LIMIT - 1));
  clock = T0 + 2 * MINUTE;
  await alerts.tick();
  assert.equal(fired.length, 1, 'one line under the limit does not fire');
});

test('presence + immediate fires on the limit-th line, not before', async () => {
  await view([{ triggerlimit: LIMIT, immediate: true, terminal: false }]);
  const alerts = evaluator();
  for (let n = 1; n < LIMIT; n++) {
    await alerts.observe(account, [line(`timeout ${n}`)]);
    assert.equal(fired.length, 0, `not at ${n} of ${LIMIT}`);
  }
  await alerts.observe(account, [line(`timeout ${LIMIT}`)]);
  assert.deepEqual(fired.map((event) => [event.kind, event.matches]), [['immediate', LIMIT]]);
  clock = T0 + MINUTE;
  await alerts.observe(account, lines(LIMIT - 1));
  assert.equal(fired.length, 1, 'a batch of one under the limit does not fire');
  await alerts.observe(account, [line('timeout last')]);
  assert.equal(fired.length, 2, 'the line that reaches the limit does');
});

test('absence fires at one line under triggerlimit and not at exactly triggerlimit', async () => {
  await view([{ operator: 'absence', triggerlimit: LIMIT, immediate: false, terminal: true }]);
  const alerts = evaluator();
  await alerts.observe(account, lines(LIMIT - 1));
  clock = T0 + MINUTE;
  await alerts.tick();
  assert.deepEqual(fired.map((event) => [event.kind, event.matches]), [['absence', LIMIT - 1]]);
  await alerts.observe(account, lines(LIMIT));
  clock = T0 + 2 * MINUTE;
  await alerts.tick();
  assert.equal(fired.length, 1, 'exactly the limit is not an absence');
});
