import assert from 'node:assert/strict';
import { test } from 'node:test';
import { errors } from '../../http/errors.js';
import { failingIntake, syslogIntakeOver } from '../../testing/syslog-intake.js';

/**
 * The syslog intake's write path against an intake and a key lookup that fail on cue: a failure
 * that is not the input's fault (the store, the configuration database) is retried until the
 * write succeeds, a 4xx is not, and each message says whether it was stored, dropped or failed.
 */

const message = (key: string, text: string) => `<14>1 - host app - - [logdna@48950 key="${key}"] ${text}`;
const peer = { address: '127.0.0.1' };

test('a store that fails twice with a plain error is tried again: the batch is stored once, nothing dropped', async () => {
  const fake = failingIntake({ 'org-k1': [new Error('disk full'), new Error('disk full')] });
  const { syslog, drops } = syslogIntakeOver(fake.intake);
  const outcomes = await syslog.store('relp', [message('k1', 'one'), message('k1', 'two')], peer, { waitForRoom: true });
  assert.deepEqual(outcomes, ['stored', 'stored']);
  assert.deepEqual(fake.written, [{ account: 'org-k1', lines: 2 }]);
  assert.equal(fake.attempts(), 3);
  assert.deepEqual(drops, []);
});

test('a store error (503) is retried for UDP too: only a full store drops a UDP batch', async () => {
  const fake = failingIntake({ 'org-k1': [errors.storeUnavailable()] });
  const { syslog, drops } = syslogIntakeOver(fake.intake);
  assert.deepEqual(await syslog.store('syslog-udp', [message('k1', 'one')], peer, { waitForRoom: false }), ['stored']);
  assert.deepEqual(fake.written, [{ account: 'org-k1', lines: 1 }]);
  assert.deepEqual(drops, []);
});

test('a configuration database that fails to look the key up is asked again', async () => {
  const fake = failingIntake({});
  let lookups = 0;
  const { syslog, drops } = syslogIntakeOver(fake.intake, async (key) => {
    if (++lookups <= 2) throw new Error('connection terminated');
    return `org-${key}`;
  });
  assert.deepEqual(await syslog.store('syslog-tcp', [message('k1', 'one')], peer, { waitForRoom: true }), ['stored']);
  assert.equal(lookups, 3);
  assert.deepEqual(fake.written, [{ account: 'org-k1', lines: 1 }]);
  assert.deepEqual(drops, []);
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

test('a write still failing when the intake stops is failed, not stored nor dropped, and the wait is cut short', async () => {
  const fake = failingIntake({ 'org-down': Array.from({ length: 1000 }, () => new Error('store away')) });
  const { syslog } = syslogIntakeOver(fake.intake);
  const storing = syslog.store('relp', [message('up', 'kept'), message('down', 'lost')], peer, { waitForRoom: true });
  await new Promise((resolve) => setTimeout(resolve, 400));
  const stoppedAt = Date.now();
  syslog.stop();
  assert.deepEqual(await storing, ['stored', 'failed']);
  assert.ok(Date.now() - stoppedAt < 1000, 'stopping does not wait out the backoff');
});
