import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFormat } from './index.js';
import { parsePrefix } from './prefix.js';

test('a timestamp then a level: the level, and the time when it names its zone', () => {
  assert.deepEqual(parsePrefix('2026-11-26T10:00:00Z ERROR disk full'), { logtype: null, fields: null, level: 'ERROR', ts: Date.parse('2026-11-26T10:00:00Z') });
  assert.deepEqual(parsePrefix('[2026-11-26 10:00:00,123] [WARN] slow'), { logtype: null, fields: null, level: 'WARN', ts: undefined });
  assert.equal(parsePrefix('2026-11-26T10:00:00+01:00 hello')?.ts, Date.parse('2026-11-26T09:00:00Z'));
  assert.equal(parsePrefix('2026-11-26T10:00:00.5+0100 hello')?.ts, Date.parse('2026-11-26T09:00:00.500Z'));
});

test("Python's default and common formats, with the logger's name", () => {
  // logging.basicConfig(); logging.getLogger('app.db').error('x')
  assert.deepEqual(parseFormat('ERROR:app.db:connection lost', ''), { logtype: null, fields: { logger: 'app.db' }, level: 'ERROR', ts: undefined });
  // format='%(asctime)s - %(name)s - %(levelname)s - %(message)s'
  assert.deepEqual(parseFormat('2026-11-26 10:00:00,123 - myapp - WARNING - low memory', ''), { logtype: null, fields: { logger: 'myapp' }, level: 'WARN', ts: undefined });
  const trace = 'ERROR:root:boom\nTraceback (most recent call last):\n  File "x.py", line 1, in <module>\nZeroDivisionError: division by zero';
  assert.equal(parseFormat(trace, '')?.level, 'ERROR', 'a multi-line stack trace is one line, read at its start');
});

test("Java's defaults: logback, Spring Boot, log4j and java.util.logging's two lines", () => {
  assert.equal(parseFormat('10:00:00.123 [main] ERROR com.example.App - failed', '')?.level, 'ERROR');
  assert.equal(parseFormat('2026-11-26T10:00:00.123Z  WARN 1234 --- [           main] c.e.App : slow', '')?.level, 'WARN');
  assert.equal(parseFormat('2026-11-26 10:00:00,123 INFO  [main] com.example.App: started', '')?.level, 'INFO');
  const jul = parseFormat('Nov 26, 2026 10:00:00 AM com.example.Main run\nSEVERE: Connection refused\n\tat com.example.Main.run(Main.java:10)', '');
  assert.equal(jul?.level, 'SEVERE');
});

test('bare and bracketed levels at the start; a word that merely starts with one is not a level', () => {
  assert.equal(parseFormat('[WARN] cache miss', '')?.level, 'WARN');
  assert.equal(parseFormat('WARN: cache miss', '')?.level, 'WARN');
  assert.equal(parseFormat('<error> x', '')?.level, 'ERROR');
  assert.equal(parseFormat('Errors were found', ''), null);
  assert.equal(parseFormat('[main] started', ''), null);
  assert.equal(parseFormat('2026-11-26 nothing', ''), null);
});
