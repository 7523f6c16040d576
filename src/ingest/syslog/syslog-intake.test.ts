import assert from 'node:assert/strict';
import { test } from 'node:test';
import { errors } from '../../http/errors.js';
import { failingIntake, syslogIntakeOver } from '../../testing/syslog-intake.js';

/**
 * The syslog intake's write path against an intake and a key lookup that fail on cue: a failure
 * that says the store or the configuration database is unavailable is retried, a bounded number of
 * times, writing the request prepared once; anything else is not retried. Each message says
 * whether it was stored, dropped, failed or interrupted, and what was not stored is counted.
 */

const message = (key: string, text: string) => `<14>1 - host app - - [logdna@48950 key="${key}"] ${text}`;
const peer = { address: '127.0.0.1' };

/** A PostgreSQL connection refused, as node-postgres throws it. */
const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

test('a store that is unavailable twice is tried again: the batch prepared once is stored once, nothing dropped', async () => {
  const fake = failingIntake({ 'org-k1': [errors.storeUnavailable(), errors.storeUnavailable()] });
  const { syslog, drops } = syslogIntakeOver(fake.intake);
  const outcomes = await syslog.store('relp', [message('k1', 'one'), message('k1', 'two')], peer, { waitForRoom: true });
  assert.deepEqual(outcomes, ['stored', 'stored']);
  assert.deepEqual(fake.written, [{ account: 'org-k1', lines: 2 }]);
  assert.equal(fake.attempts(), 3);
  assert.equal(fake.prepares(), 1, 'prepared (line ids, batch id) once');
  assert.deepEqual(fake.attemptedBatches, [1, 1, 1], 'every try writes the same prepared batch');
  assert.deepEqual(drops, []);
});

test('a configuration database away while the request is prepared is tried again, then written once', async () => {
  const fake = failingIntake({}, { 'org-k1': [refused(), Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })] });
  const { syslog, drops } = syslogIntakeOver(fake.intake);
  assert.deepEqual(await syslog.store('syslog-tcp', [message('k1', 'one')], peer, { waitForRoom: true }), ['stored']);
  assert.equal(fake.prepares(), 3);
  assert.deepEqual(fake.writtenBatches, [3]);
  assert.deepEqual(drops, []);
});

test('a plain error (a bug) is not retried: the messages fail at once, counted as internal-error and logged as an error', async () => {
  const fake = failingIntake({ 'org-k1': [new TypeError("Cannot read properties of undefined (reading 'x')")] });
  const { syslog, drops, log } = syslogIntakeOver(fake.intake);
  const outcomes = await syslog.store('relp', [message('k1', 'one'), message('k1', 'two'), message('k2', 'other')], peer, { waitForRoom: true });
  assert.deepEqual(outcomes, ['failed', 'failed', 'stored']);
  assert.equal(fake.attempts(), 2, 'one try for k1, one for k2');
  assert.deepEqual(drops, [{ reason: 'internal-error', messages: 2 }]);
  const logged = log.lines.filter((line) => line.level === 'error');
  assert.equal(logged.length, 1);
  assert.match(logged[0].message!, /write failed with an unexpected error \(not retried\)/);
});

test('a store still unavailable after the bounded tries: the messages fail, are counted once and logged once', async () => {
  const fake = failingIntake({ 'org-down': Array.from({ length: 100 }, () => errors.storeUnavailable()) });
  const { syslog, drops, log } = syslogIntakeOver(fake.intake, undefined, { attempts: 4, firstDelayMs: 5, maxDelayMs: 20 });
  const outcomes = await syslog.store('syslog-tcp', [message('down', 'a'), message('down', 'b'), message('up', 'c')], peer, { waitForRoom: true });
  assert.deepEqual(outcomes, ['failed', 'failed', 'stored']);
  assert.equal(fake.attempts(), 4 + 1);
  assert.equal(fake.prepares(), 2, 'one preparation per request, however many tries');
  assert.deepEqual(drops, [{ reason: 'store-failed', messages: 2 }]);
  const given = log.lines.filter((line) => /not stored/.test(line.message ?? ''));
  assert.equal(given.length, 1);
  assert.match(given[0].message!, /unavailable through 4 tries/);
});

test('a store error (503) is retried for UDP too: only a full store drops a UDP batch', async () => {
  const fake = failingIntake({ 'org-k1': [errors.storeUnavailable()] });
  const { syslog, drops } = syslogIntakeOver(fake.intake);
  assert.deepEqual(await syslog.store('syslog-udp', [message('k1', 'one')], peer, { waitForRoom: false }), ['stored']);
  assert.deepEqual(fake.written, [{ account: 'org-k1', lines: 1 }]);
  assert.deepEqual(drops, []);
});

test('a configuration database that cannot be reached for the key lookup is asked again', async () => {
  const fake = failingIntake({});
  let lookups = 0;
  const { syslog, drops } = syslogIntakeOver(fake.intake, async (key) => {
    if (++lookups === 1) throw refused();
    if (lookups === 2) throw new Error('Connection terminated unexpectedly');
    return `org-${key}`;
  });
  assert.deepEqual(await syslog.store('syslog-tcp', [message('k1', 'one')], peer, { waitForRoom: true }), ['stored']);
  assert.equal(lookups, 3);
  assert.deepEqual(fake.written, [{ account: 'org-k1', lines: 1 }]);
  assert.deepEqual(drops, []);
});

test('a key lookup that fails: an unreachable database is retried then said so, any other error is not retried and says so; neither is a key drop', async () => {
  const fake = failingIntake({});
  let lookups = 0;
  const { syslog, drops, log } = syslogIntakeOver(fake.intake, async (key) => {
    lookups++;
    if (key === 'away') throw refused();
    throw new RangeError('bug in the lookup');
  });
  assert.deepEqual(await syslog.store('relp', [message('away', 'a'), message('broken', 'b')], peer, { waitForRoom: true }), ['failed', 'failed']);
  assert.equal(lookups, 4 + 1, 'four tries for the unreachable database, one for the bug');
  assert.deepEqual(
    drops.sort((a, b) => a.reason.localeCompare(b.reason)),
    [
      { reason: 'internal-error', messages: 1 },
      { reason: 'store-failed', messages: 1 },
    ],
  );
  const said = log.lines.map((line) => line.message ?? '');
  assert.ok(said.some((line) => /key lookup found the configuration database unavailable/.test(line)), said.join('\n'));
  assert.ok(said.some((line) => /key lookup failed with an unexpected error/.test(line)), said.join('\n'));
  assert.ok(!said.some((line) => /still being retried as the listener stopped/.test(line)));
  assert.equal(fake.attempts(), 0);
});

test('a client error (4xx) is not retried: its messages are dropped and counted, the others stored', async () => {
  const fake = failingIntake({ 'org-bad': [errors.storedTooLarge()] });
  const { syslog, drops } = syslogIntakeOver(fake.intake, async (key) => (key === 'unknown' ? null : `org-${key}`));
  const outcomes = await syslog.store('relp', [message('bad', 'refused'), message('good', 'kept'), message('unknown', 'nobody')], peer, { waitForRoom: true });
  assert.deepEqual(outcomes, ['dropped', 'stored', 'dropped']);
  assert.equal(fake.attempts(), 2, 'one attempt each for bad and good');
  assert.deepEqual(fake.written, [{ account: 'org-good', lines: 1 }]);
  assert.deepEqual(
    drops.sort((a, b) => a.reason.localeCompare(b.reason)),
    [
      { reason: 'store-failed', messages: 1 },
      { reason: 'wrong-key', messages: 1 },
    ],
  );
});

test('a write still being retried when the intake stops is interrupted, not stored nor failed, and the wait is cut short', async () => {
  const fake = failingIntake({ 'org-down': Array.from({ length: 1000 }, () => errors.storeUnavailable()) });
  const { syslog, drops } = syslogIntakeOver(fake.intake, undefined, { attempts: 1000, firstDelayMs: 100, maxDelayMs: 5_000 });
  const storing = syslog.store('relp', [message('up', 'kept'), message('down', 'lost')], peer, { waitForRoom: true });
  await new Promise((resolve) => setTimeout(resolve, 400));
  const stoppedAt = Date.now();
  syslog.stop();
  assert.deepEqual(await storing, ['stored', 'interrupted']);
  assert.ok(Date.now() - stoppedAt < 1000, 'stopping does not wait out the backoff');
  assert.deepEqual(drops, [{ reason: 'store-failed', messages: 1 }]);
});
