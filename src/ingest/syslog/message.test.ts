import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseSyslog } from './message.js';
import { syslogLine } from './to-line.js';

const NOW = Date.parse('2026-11-26T12:00:00Z');

describe('RFC 5424', () => {
  test('every header field, structured data with escapes, and the message', () => {
    const message = parseSyslog(
      '<165>1 2026-11-26T10:00:00.123456+01:00 web-1.example.com shop 8710 ID47 [exampleSDID@32473 iut="3" eventSource="App\\"lication\\]" eventID="1011"][logdna@48950 key="abc" tags="web,prod"] \ufeffAn application event',
      NOW,
    );
    assert.equal(message.facility, 20);
    assert.equal(message.severity, 5);
    assert.equal(message.time, Date.parse('2026-11-26T09:00:00.123Z'));
    assert.equal(message.hostname, 'web-1.example.com');
    assert.equal(message.appName, 'shop');
    assert.equal(message.procId, '8710');
    assert.equal(message.msgId, 'ID47');
    assert.deepEqual(message.structuredData, [
      { id: 'exampleSDID@32473', params: [['iut', '3'], ['eventSource', 'App"lication]'], ['eventID', '1011']] },
      { id: 'logdna@48950', params: [['key', 'abc'], ['tags', 'web,prod']] },
    ]);
    assert.equal(message.msg, 'An application event');
  });

  test('nil values, no structured data, no message', () => {
    const message = parseSyslog('<13>1 - - - - - -', NOW);
    assert.equal(message.time, undefined);
    assert.equal(message.hostname, '');
    assert.equal(message.appName, '');
    assert.deepEqual(message.structuredData, []);
    assert.equal(message.msg, '');
  });

  test("rsyslog's template for Mezmo: version 0 for a local message, and %msg%'s leading space", () => {
    const message = parseSyslog('<14>0 2026-11-26T10:00:00.000000+00:00 host1 cron - - [logdna@48950 key="k1"]  job started\n', NOW);
    assert.equal(message.appName, 'cron');
    assert.equal(message.msg, 'job started');
    assert.deepEqual(syslogLine(message).key, 'k1');
  });

  test("syslog-ng's frame content ends in a newline; a BOM before the whole message is dropped", () => {
    assert.equal(parseSyslog('<13>1 2026-11-26T10:00:00+00:00 vm myapp - - [meta sequenceId="1"] hello\n', NOW).msg, 'hello');
    const bom = parseSyslog('\ufeff<13>1 2026-11-26T10:00:00Z vm app - - - text', NOW);
    assert.equal(bom.appName, 'app');
    assert.equal(bom.msg, 'text');
  });

  test('a backslash before anything but " \\ ] stays a backslash', () => {
    assert.deepEqual(parseSyslog('<13>1 - h a - - [x@1 path="C:\\dir\\\\end"] m', NOW).structuredData[0].params, [['path', 'C:\\dir\\end']]);
  });

  test('broken structured data is part of the message', () => {
    const message = parseSyslog('<13>1 2026-11-26T10:00:00Z h app - - [unterminated x="1" rest', NOW);
    assert.deepEqual(message.structuredData, []);
    assert.equal(message.msg, '[unterminated x="1" rest');
  });
});

describe('RFC 3164 (BSD)', () => {
  test("the classic format, as logger --rfc3164 and syslog-ng's network() send it", () => {
    const message = parseSyslog('<34>Nov 26 10:04:05 mymachine su[230]: \'su root\' failed for lonvick', NOW);
    assert.equal(message.facility, 4);
    assert.equal(message.severity, 2);
    assert.equal(message.time, new Date(2026, 10, 26, 10, 4, 5).getTime());
    assert.equal(message.hostname, 'mymachine');
    assert.equal(message.appName, 'su');
    assert.equal(message.procId, '230');
    assert.equal(message.msg, "'su root' failed for lonvick");
  });

  test('a space-padded day, and a December message read in January is last year\'s', () => {
    const january = Date.parse('2027-01-01T00:10:00Z');
    assert.equal(parseSyslog('<13>Dec 31 23:59:00 h app: m', january).time, new Date(2026, 11, 31, 23, 59, 0).getTime());
    assert.equal(parseSyslog('<13>Nov  6 01:02:03 h app: m', NOW).time, new Date(2026, 10, 6, 1, 2, 3).getTime());
  });

  test("rsyslog's forward format: an RFC 3339 time and a tag", () => {
    const message = parseSyslog('<30>2026-11-26T10:00:00.5+00:00 db-2 postgres[77]: checkpoint complete', NOW);
    assert.equal(message.time, Date.parse('2026-11-26T10:00:00.500Z'));
    assert.equal(message.hostname, 'db-2');
    assert.equal(message.appName, 'postgres');
    assert.equal(message.procId, '77');
    assert.equal(message.msg, 'checkpoint complete');
  });

  test('no hostname: the first word after the time is the tag', () => {
    const message = parseSyslog('<13>Nov 26 10:04:05 myapp[12]: local message', NOW);
    assert.equal(message.hostname, '');
    assert.equal(message.appName, 'myapp');
    assert.equal(message.msg, 'local message');
  });

  test('no PRI at all: the whole text is the message', () => {
    const message = parseSyslog('just some text', NOW);
    assert.equal(message.severity, undefined);
    assert.equal(message.msg, 'just some text');
  });
});

describe('the line a message becomes', () => {
  test('host, app, level, pid, time, tags, meta; the logdna@48950 element is never meta', () => {
    const line = syslogLine(
      parseSyslog('<11>1 2026-11-26T10:00:00Z web-1 shop 42 ORDER [logdna@48950 key="secret" tags="web, prod"][origin ip="10.0.0.1"][x@1 a="1" a="2"] {"order":7,"level":"warn"}', NOW),
    );
    assert.equal(line.key, 'secret');
    assert.deepEqual(line.tags, ['web', 'prod']);
    assert.deepEqual(line.line, {
      line: '{"order":7,"level":"warn"}',
      host: 'web-1',
      app: 'shop',
      level: 'ERROR',
      timestamp: Date.parse('2026-11-26T10:00:00Z'),
      pid: 42,
      meta: { origin: { ip: '10.0.0.1' }, 'x@1': { a: ['1', '2'] }, msgid: 'ORDER', facility: 'user' },
    });
    assert.ok(!JSON.stringify(line.line).includes('secret'));
  });

  test('every severity names a level', () => {
    const levels = Array.from({ length: 8 }, (_, severity) => syslogLine(parseSyslog(`<${8 + severity}>1 - h a - - - m`, NOW)).line.level);
    assert.deepEqual(levels, ['EMERGENCY', 'ALERT', 'CRITICAL', 'ERROR', 'WARN', 'NOTICE', 'INFO', 'DEBUG']);
  });
});
