import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFormat } from './index.js';

test("PostgreSQL's default prefix: pid, severity, duration and statement, the level, the time when the zone is UTC", () => {
  const slow = parseFormat('2026-11-28 10:00:00.123 UTC [1234] LOG:  duration: 12.3 ms  statement: SELECT 1', '');
  assert.equal(slow?.logtype, 'postgresql');
  assert.deepEqual(slow?.fields, { pid: 1234, severity: 'LOG', duration_ms: 12.3, statement: 'SELECT 1', message: 'duration: 12.3 ms  statement: SELECT 1' });
  assert.equal(slow?.level, 'INFO');
  assert.equal(slow?.ts, Date.parse('2026-11-28T10:00:00.123Z'));
  // Debian's %q%u@%d, as its clusters write it (a real line from this machine's log).
  const failed = parseFormat('2026-11-28 17:41:28.492 UTC [17635] postgres@logstead_test ERROR:  division by zero', '');
  assert.deepEqual(failed?.fields, { pid: 17635, _user: 'postgres', database: 'logstead_test', severity: 'ERROR', message: 'division by zero' });
  assert.equal(failed?.level, 'ERROR');
  const statement = parseFormat('2026-11-28 17:41:28.492 UTC [17635] postgres@logstead_test STATEMENT:  SELECT 1/0', '');
  assert.equal(statement?.fields?.statement, 'SELECT 1/0');
  assert.equal(statement?.level, undefined, 'DETAIL and STATEMENT belong to the message before them');
  assert.equal(parseFormat('2026-11-28 10:00:00.123 CET [1] LOG:  x', '')?.ts, undefined, 'a named zone would be a guess');
  assert.equal(parseFormat('2026-11-28 10:00:00.123 +03 [1] FATAL:  x', '')?.ts, Date.parse('2026-11-28T07:00:00.123Z'));
  assert.equal(parseFormat('2026-11-28 10:00:00.123 UTC [1] NOPE:  x', '')?.logtype ?? null, null);
});

test('MySQL 8 and MariaDB error logs: thread, code, subsystem, level; the time only when it names its zone', () => {
  const mysql = parseFormat('2026-11-28T10:00:00.123456Z 0 [System] [MY-010116] [Server] /usr/sbin/mysqld (mysqld 8.0.35) starting as process 1', '');
  assert.equal(mysql?.logtype, 'mysql');
  assert.deepEqual(mysql?.fields, { thread_id: 0, error_code: 'MY-010116', subsystem: 'Server', message: '/usr/sbin/mysqld (mysqld 8.0.35) starting as process 1' });
  assert.equal(mysql?.level, 'INFO');
  assert.equal(mysql?.ts, Date.parse('2026-11-28T10:00:00.123Z'));
  const mariadb = parseFormat("2026-11-28 16:54:27 3 [Warning] Aborted connection 3 to db: 'unconnected' user: 'unauthenticated' host: '127.0.0.1' (This connection closed normally without authentication)", '');
  assert.equal(mariadb?.logtype, 'mysql');
  assert.equal(mariadb?.fields?.thread_id, 3);
  assert.equal(mariadb?.level, 'WARN');
  assert.equal(mariadb?.ts, undefined);
  // From midnight to 10 a.m. MariaDB pads the hour with a space.
  const early = parseFormat("2026-11-29  0:27:34 9 [Warning] Aborted connection 9 to db: 'unconnected' user: 'unauthenticated' host: '127.0.0.1' (This connection closed normally without authentication)", '');
  assert.deepEqual([early?.logtype, early?.fields?.thread_id, early?.level, early?.ts], ['mysql', 9, 'WARN', undefined]);
  assert.equal(parseFormat('2026-11-28 16:54:26 0 [Note] InnoDB: Buffer pool(s) load completed', '')?.level, 'NOTICE');
});

test('Redis: pid, role, level from its mark', () => {
  const ready = parseFormat('2256:M 28 Nov 2026 16:53:57.790 * Ready to accept connections', '');
  assert.equal(ready?.logtype, 'redis');
  assert.deepEqual(ready?.fields, { pid: 2256, role: 'master', message: 'Ready to accept connections' });
  assert.equal(ready?.level, 'NOTICE');
  const warning = parseFormat('7:C 1 Dec 2026 09:00:00.001 # WARNING Memory overcommit must be enabled!', '');
  assert.equal(warning?.fields?.role, 'child');
  assert.equal(warning?.level, 'WARN');
  assert.equal(parseFormat('12:M nonsense', '')?.logtype ?? null, null);
});
