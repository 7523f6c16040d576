import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFormat } from './index.js';
import { parseSyslogHeader, withoutMezmoElement } from './syslog-header.js';

test('RFC 5424 (its own examples): host, app, severity, time, ids and structured data', () => {
  const parsed = parseSyslogHeader('<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut="3" eventSource="Application" eventID="1011"] BOMAn application event log entry...');
  assert.ok(parsed);
  assert.equal(parsed.logtype, 'syslog');
  assert.equal(parsed.host, 'mymachine.example.com');
  assert.equal(parsed.app, 'evntslog');
  assert.equal(parsed.level, 'NOTICE');
  assert.equal(parsed.ts, Date.parse('2003-10-11T22:14:15.003Z'));
  assert.deepEqual(parsed.fields, { facility: 'local4', msgid: 'ID47', iut: 3, eventSource: 'Application', eventID: 1011, message: 'BOMAn application event log entry...' });
  const nil = parseSyslogHeader('<34>1 2003-10-11T22:14:15.003-07:00 - - - - - \uFEFFsu root failed');
  assert.equal(nil?.host, undefined);
  assert.equal(nil?.level, 'CRITICAL');
  assert.equal(nil?.ts, Date.parse('2003-10-12T05:14:15.003Z'));
  assert.equal(nil?.fields?.message, 'su root failed');
});

test('RFC 3164, with and without <PRI> and host, as relays and `logger` forward it', () => {
  const parsed = parseFormat("<34>Oct 11 22:14:15 mymachine su: 'su root' failed for lonvick on /dev/pts/8", '');
  assert.equal(parsed?.host, 'mymachine');
  assert.equal(parsed?.app, 'su');
  assert.equal(parsed?.level, 'CRITICAL');
  assert.deepEqual(parsed?.fields, { facility: 'auth', message: "'su root' failed for lonvick on /dev/pts/8" });
  const withPid = parseFormat('Nov  6 09:01:02 web-1 sshd[4123]: Accepted publickey for deploy', '');
  assert.equal(withPid?.host, 'web-1');
  assert.equal(withPid?.app, 'sshd');
  assert.equal(withPid?.fields?.pid, 4123);
  assert.equal(withPid?.level, undefined, 'no PRI, no severity: the level is left to the text');
  const noHost = parseFormat('<13>Nov 26 10:00:00 myapp[7]: hello', '');
  assert.equal(noHost?.host, undefined);
  assert.equal(noHost?.app, 'myapp');
  assert.equal(noHost?.fields?.message, 'hello');
});

test('never a field named host, app, level or tag; lines that are not syslog stay as they are', () => {
  const parsed = parseSyslogHeader('<14>1 2026-11-26T10:00:00Z h a - - [x@1 host="evil" app="x" level="debug" tag="t"] m');
  assert.deepEqual(parsed?.fields, { facility: 'user', message: 'm' });
  assert.equal(parsed?.host, 'h');
  for (const line of ['<999>1 x', '<13>1 notatime h a - - - m', '<13>1 2026-11-26T10:00:00Z h a - - [unclosed m', 'Nov 26 went well', 'Novel 26 10:00:00 x y: z']) {
    assert.equal(parseSyslogHeader(line), null, line);
  }
});

test("Mezmo's logdna@48950 element (the ingestion key and tags) is skipped; other elements still become fields", () => {
  const parsed = parseSyslogHeader('<14>1 2026-11-26T10:00:00Z host app 1 - [logdna@48950 key="secret" tags="a"][x@1 y="z"] hello');
  assert.ok(parsed);
  assert.deepEqual(parsed.fields, { facility: 'user', pid: 1, y: 'z', message: 'hello' });
  assert.doesNotMatch(JSON.stringify(parsed), /secret/);
  // As it arrives over HTTP: the line parsed by format, the key nowhere in what is stored.
  assert.doesNotMatch(JSON.stringify(parseFormat('<14>1 2026-11-26T10:00:00Z host app 1 - [logdna@48950 key="secret"] hello', '')), /secret/);
});

test("withoutMezmoElement takes Mezmo's element, and with it the ingestion key, out of a line's text", () => {
  const cases: [string, string][] = [
    ['<14>1 2026-11-26T10:00:00Z host app 1 - [logdna@48950 key="secret" tags="a,b"] hello', '<14>1 2026-11-26T10:00:00Z host app 1 - - hello'],
    ['<14>1 - host app - - [logdna@48950 key="secret"][x@1 y="z"] hello', '<14>1 - host app - - [x@1 y="z"] hello'],
    ['<14>1 - host app - - [x@1 y="z"][logdna@48950 key="secret" tags="a"] hello', '<14>1 - host app - - [x@1 y="z"] hello'],
    ['<14>0 - host app - - [logdna@48950 key="se\\"]cret"] quoted', '<14>0 - host app - - - quoted'],
    ['[logdna@48950 key="secret"][broken m', '[broken m'],
    ['<14>1 - host app - - [logdna@48950 key="secret never closes', '<14>1 - host app - -'],
    ['no element [logdna@489501 key="other"] here', 'no element [logdna@489501 key="other"] here'],
    ['plain text', 'plain text'],
  ];
  for (const [line, stored] of cases) assert.equal(withoutMezmoElement(line), stored, line);
});
