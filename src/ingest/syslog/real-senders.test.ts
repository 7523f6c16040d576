import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import tls from 'node:tls';
import { type TestServer, eventually, jsonLines, request, startTestServer } from '../../testing/harness.js';
import { type SyslogDaemon, logger, selfSignedCertificate, sendersMissing, startRsyslog, startSyslogNg } from '../../testing/syslog-daemons.js';
import { LIMITS } from '../../wire/limits.js';

/**
 * Syslog through the real senders, configured as a user would from the README: util-linux logger
 * over TCP (both framings) and UDP; Debian's rsyslog with Mezmo's template over TCP, UDP, TLS (its
 * gnutls driver) and RELP (omrelp), and with its own default templates; syslog-ng's syslog() and
 * network() destinations. Each line is checked for host, app, level, time, tags and meta; a wrong
 * or missing key stores nothing anywhere, and is counted.
 */

// Each suite skips only for what it needs itself (the server's TLS listener needs openssl's certificate).
const serverSkip = sendersMissing(['openssl']);
const loggerSkip = sendersMissing(['openssl', 'logger']);
const rsyslogMezmoSkip = sendersMissing(['openssl', 'logger', 'rsyslog', 'rsyslog-gnutls', 'rsyslog-relp']);
const rsyslogSkip = sendersMissing(['openssl', 'logger', 'rsyslog']);
const syslogNgSkip = sendersMissing(['openssl', 'logger', 'syslog-ng']);
const HOST = os.hostname();
const word = (prefix: string) => `${prefix}${randomBytes(4).toString('hex')}`;

let server: TestServer;
let other: { ingestionKey: string; serviceKey: string };
let certDir: string;
let ports: { tcp: number; udp: number; tls: number; relp: number };

before(async () => {
  if (serverSkip) return;
  certDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-syslog-tls-'));
  const { cert, key } = await selfSignedCertificate(certDir);
  server = await startTestServer({
    LOGSTEAD_SYSLOG_TCP_PORT: '0',
    LOGSTEAD_SYSLOG_UDP_PORT: '0',
    LOGSTEAD_SYSLOG_TLS_PORT: '0',
    LOGSTEAD_SYSLOG_TLS_CERT: cert,
    LOGSTEAD_SYSLOG_TLS_KEY: key,
    LOGSTEAD_RELP_PORT: '0',
  });
  other = await server.createOrg('other');
  const bound = server.running.syslogPorts;
  ports = { tcp: bound.tcp!, udp: bound.udp!, tls: bound.tls!, relp: bound.relp! };
});
after(async () => {
  await server?.close();
  if (certDir) fs.rmSync(certDir, { recursive: true, force: true });
});

async function exported(target: TestServer, serviceKey: string, query: string): Promise<any[]> {
  const reply = await request(`${target.url}/v1/export?from=0&to=${Date.now() + 3_600_000}&prefer=head&query=${encodeURIComponent(query)}`, { headers: { servicekey: serviceKey } });
  assert.equal(reply.status, 200, reply.text);
  return jsonLines(reply.text);
}

/** Waits until `count` lines hold `marker`, and returns them once no more arrive. */
async function stored(marker: string, count: number, target = server, serviceKey = server.org.serviceKey): Promise<any[]> {
  const lines = await eventually(async () => {
    const found = await exported(target, serviceKey, marker);
    return found.length >= count ? found : undefined;
  }, 20_000, `${count} lines with ${marker}`);
  assert.equal(lines.length, count, `exactly ${count} lines hold ${marker}`);
  return lines;
}

async function droppedCount(target: TestServer, protocol: string, reason: string): Promise<number> {
  const reply = await request(`${target.url}/metrics`);
  const match = new RegExp(`^logstead_syslog_dropped_messages_total\\{protocol="${protocol}",reason="${reason}"\\} (\\d+)`, 'm').exec(reply.text);
  return match ? Number(match[1]) : 0;
}

const mezmoSd = (key: string, tags: string) => ['--sd-id', 'logdna@48950', '--sd-param', `key="${key}"`, '--sd-param', `tags="${tags}"`];

describe('util-linux logger, straight to Logstead', { skip: loggerSkip }, () => {
  for (const [name, flags] of [
    ['TCP, newline framing', ['-T']],
    ['TCP, octet counting', ['-T', '--octet-count']],
    ['UDP', ['-d']],
  ] as const) {
    test(`RFC 5424 over ${name}: host, app, level, pid, time, tags, msgid and structured data`, async () => {
      const marker = word('logger');
      const port = flags[0] === '-d' ? ports.udp : ports.tcp;
      const before = Date.now();
      await logger(['-n', '127.0.0.1', '-P', String(port), ...flags, '--rfc5424', ...mezmoSd(server.org.ingestionKey, 'web,prod'), '--msgid', 'ORDER', '-t', 'shop', '-i', '-p', 'local3.err', '--', `payment failed ${marker}`]);
      const [line] = await stored(marker, 1);
      assert.equal(line._line, `payment failed ${marker}`);
      assert.equal(line._host, HOST);
      assert.equal(line._app, 'shop');
      assert.equal(line.level, 'ERROR');
      assert.deepEqual(line.tags, ['web', 'prod']);
      assert.equal(typeof line.pid, 'number');
      assert.equal(line.meta.msgid, 'ORDER');
      assert.equal(line.meta.facility, 'local3');
      assert.ok(line.meta.timeQuality, 'logger\'s own structured data is meta');
      assert.ok(!JSON.stringify(line).includes(server.org.ingestionKey), 'the key is never stored');
      assert.ok(line._ts >= before - 1000 && line._ts <= Date.now() + 1000, 'the message\'s own time');
    });
  }

  test('a JSON message is parsed as /logs/ingest parses one', async () => {
    const marker = word('json');
    await logger(['-n', '127.0.0.1', '-P', String(ports.tcp), '-T', '--rfc5424', ...mezmoSd(server.org.ingestionKey, 'json'), '-t', 'api', '--', JSON.stringify({ marker, code: 503, level: 'warn' })]);
    const [line] = await stored(marker, 1);
    assert.equal(line.code, 503);
    assert.equal(line.level, 'WARN');
    assert.equal(line._logtype, 'json');
    const search = await exported(server, server.org.serviceKey, `code:>=500 ${marker}`);
    assert.equal(search.length, 1);
  });

  test('a wrong key and a missing key store nothing, in any organisation, and are counted', async () => {
    const marker = word('refused');
    const wrongBefore = await droppedCount(server, 'syslog-tcp', 'wrong-key');
    const missingBefore = await droppedCount(server, 'syslog-udp', 'no-key');
    await logger(['-n', '127.0.0.1', '-P', String(ports.tcp), '-T', '--rfc5424', ...mezmoSd('not-a-key-of-anyone', 'x'), '-t', 'a', '--', `wrong ${marker}`]);
    await logger(['-n', '127.0.0.1', '-P', String(ports.tcp), '-T', '--rfc5424', ...mezmoSd(other.serviceKey, 'x'), '-t', 'a', '--', `service key ${marker}`]);
    await logger(['-n', '127.0.0.1', '-P', String(ports.udp), '-d', '--rfc5424', '-t', 'a', '--', `no key ${marker}`]);
    await eventually(async () => ((await droppedCount(server, 'syslog-tcp', 'wrong-key')) >= wrongBefore + 2 && (await droppedCount(server, 'syslog-udp', 'no-key')) >= missingBefore + 1) || undefined, 10_000, 'the drops counted');
    // A good message sent after them is stored, so they had their turn.
    const after = word('after');
    await logger(['-n', '127.0.0.1', '-P', String(ports.tcp), '-T', '--rfc5424', ...mezmoSd(server.org.ingestionKey, 'x'), '-t', 'a', '--', after]);
    await stored(after, 1);
    assert.deepEqual(await exported(server, server.org.serviceKey, marker), []);
    assert.deepEqual(await exported(server, other.serviceKey, marker), []);
  });

  test('a message over the line limit is cut as on HTTP', async () => {
    const marker = word('long');
    const text = `${marker} ${'x'.repeat(LIMITS.lineBytes * 2)}`;
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect({ host: '127.0.0.1', port: ports.tcp }, () => {
        const message = Buffer.from(`<13>1 - big app - - [logdna@48950 key="${server.org.ingestionKey}"] ${text}`);
        socket.end(Buffer.concat([Buffer.from(`${message.length} `), message]));
      });
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    const [line] = await stored(marker, 1);
    assert.equal(Buffer.byteLength(line._line), LIMITS.lineBytes);
  });
});

describe('TLS (RFC 5425)', { skip: serverSkip }, () => {
  test('a client that speaks plain TCP to the TLS port fails its handshake: counted, and the listener goes on', async () => {
    const before = await droppedCount(server, 'syslog-tls', 'tls-handshake');
    await new Promise<void>((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port: ports.tls }, () => socket.write(`<13>1 - h a - - - not encrypted\n`));
      socket.on('error', () => resolve());
      socket.on('close', () => resolve());
    });
    await eventually(async () => ((await droppedCount(server, 'syslog-tls', 'tls-handshake')) > before) || undefined, 5000, 'the failed handshake counted');
    const marker = word('tls');
    await new Promise<void>((resolve, reject) => {
      const socket = tls.connect({ host: '127.0.0.1', port: ports.tls, rejectUnauthorized: false }, () =>
        socket.end(`<13>1 - h app - - [logdna@48950 key="${server.org.ingestionKey}"] ${marker}\n`),
      );
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    await stored(marker, 1);
  });
});

/** Mezmo's documented rsyslog template, with a tag naming the way each copy went. */
const mezmoTemplate = (name: string, key: string, tags: string) =>
  `template(name="${name}" type="string" string="<%PRI%>%protocol-version% %timestamp:::date-rfc3339% %HOSTNAME% %app-name% %procid% %msgid% [logdna@48950 key=\\"${key}\\" tags=\\"${tags}\\"] %msg%\\n")`;

describe('rsyslog with Mezmo\'s template', { skip: rsyslogMezmoSkip }, () => {
  let rsyslog: SyslogDaemon;
  before(async () => {
    if (rsyslogMezmoSkip) return;
    const key = server.org.ingestionKey;
    rsyslog = await startRsyslog(
      [
        `global(DefaultNetstreamDriverCAFile="${certDir}/cert.pem")`,
        'module(load="omrelp")',
        mezmoTemplate('MezmoTcp', key, 'rsyslog-tcp'),
        mezmoTemplate('MezmoUdp', key, 'rsyslog-udp'),
        mezmoTemplate('MezmoTls', key, 'rsyslog-tls'),
        mezmoTemplate('MezmoRelp', key, 'rsyslog-relp'),
        `action(type="omfwd" protocol="tcp" target="127.0.0.1" port="${ports.tcp}" template="MezmoTcp")`,
        `action(type="omfwd" protocol="udp" target="127.0.0.1" port="${ports.udp}" template="MezmoUdp")`,
        `action(type="omfwd" protocol="tcp" target="127.0.0.1" port="${ports.tls}" StreamDriver="gtls" StreamDriverMode="1" StreamDriverAuthMode="anon" template="MezmoTls")`,
        `action(type="omrelp" target="127.0.0.1" port="${ports.relp}" template="MezmoRelp")`,
      ].join('\n'),
    );
  });
  after(() => rsyslog?.stop());

  test('every message arrives once by each of TCP, UDP, TLS and RELP, with host, app, level, pid and time', async () => {
    const marker = word('rsyslog');
    const before = Date.now();
    await logger(['-u', rsyslog.socket, '-t', 'billing', '-i', '-p', 'user.warning', '--', `invoice late ${marker}`]);
    await logger(['-u', rsyslog.socket, '-t', 'billing', '-p', 'daemon.info', '--', `invoice sent ${marker}`]);
    await logger(['-u', rsyslog.socket, '-t', 'billing', '-p', 'auth.crit', '--', `{"event":"breach","marker":"${marker}","score":9}`]);
    const lines = await stored(marker, 12).catch((error) => {
      throw new Error(`${error}\nrsyslog said:\n${rsyslog.output()}`);
    });
    for (const tag of ['rsyslog-tcp', 'rsyslog-udp', 'rsyslog-tls', 'rsyslog-relp']) {
      const mine = lines.filter((line) => line.tags.includes(tag));
      assert.equal(mine.length, 3, `three messages through ${tag}`);
      const byText = new Map(mine.map((line) => [line._line.includes('late') ? 'late' : line._line.includes('sent') ? 'sent' : 'json', line]));
      assert.equal(byText.get('late')._line, `invoice late ${marker}`, 'the leading space of %msg% is not part of the line');
      assert.equal(byText.get('late').level, 'WARN');
      assert.equal(typeof byText.get('late').pid, 'number');
      assert.equal(byText.get('sent').level, 'INFO');
      assert.equal(byText.get('json').level, 'CRITICAL');
      assert.equal(byText.get('json').score, 9, 'a JSON message\'s fields are searchable');
      assert.equal(byText.get('json').meta.facility, 'auth');
      for (const line of mine) {
        assert.equal(line._host, HOST);
        assert.equal(line._app, 'billing');
        assert.ok(line._ts >= before - 2000 && line._ts <= Date.now() + 1000);
      }
    }
  });
});

// Last: the server restarts with the fallback key (one embedded engine per process, so the same
// server), once, for whichever of the two suites below runs first.
let keyedRestart: Promise<TestServer> | undefined;
const keyedServer = () =>
  (keyedRestart ??= (async () => {
    await server.restart({ LOGSTEAD_SYSLOG_KEY: server.org.ingestionKey });
    return server;
  })());

describe('rsyslog\'s default formats, under LOGSTEAD_SYSLOG_KEY', { skip: rsyslogSkip }, () => {
  let keyed: TestServer;
  let rsyslog: SyslogDaemon;
  before(async () => {
    if (rsyslogSkip) return;
    keyed = await keyedServer();
    const { tcp, udp } = keyed.running.syslogPorts;
    rsyslog = await startRsyslog(
      [
        `action(type="omfwd" protocol="tcp" target="127.0.0.1" port="${tcp}" TCP_Framing="octet-counted" template="RSYSLOG_SyslogProtocol23Format")`,
        `action(type="omfwd" protocol="udp" target="127.0.0.1" port="${udp}")`,
        `action(type="omfwd" protocol="tcp" target="127.0.0.1" port="${tcp}")`,
      ].join('\n'),
    );
  });
  after(() => rsyslog?.stop());

  test('rsyslog: RFC 5424 octet-counted, the traditional format over UDP and TCP', async () => {
    const marker = word('rsdefault');
    await logger(['-u', rsyslog.socket, '-t', 'cron', '-i', '-p', 'cron.notice', '--', `job done ${marker}`]);
    const lines = await stored(marker, 3, keyed, keyed.org.serviceKey);
    for (const line of lines) {
      assert.equal(line._line, `job done ${marker}`);
      assert.equal(line._host, HOST);
      assert.equal(line._app, 'cron');
      assert.equal(line.level, 'NOTICE');
      assert.equal(typeof line.pid, 'number');
    }
  });
});

describe('syslog-ng\'s default formats, under LOGSTEAD_SYSLOG_KEY', { skip: syslogNgSkip }, () => {
  let keyed: TestServer;
  let syslogNg: SyslogDaemon;
  before(async () => {
    if (syslogNgSkip) return;
    keyed = await keyedServer();
    const { tcp, udp } = keyed.running.syslogPorts;
    syslogNg = await startSyslogNg(
      [
        `destination d_syslog { syslog("127.0.0.1" transport("tcp") port(${tcp}) persist-name("d_syslog")); };`,
        `destination d_network { network("127.0.0.1" transport("tcp") port(${tcp}) persist-name("d_network")); };`,
        `destination d_udp { network("127.0.0.1" transport("udp") port(${udp}) persist-name("d_udp")); };`,
        'log { source(s_local); destination(d_syslog); destination(d_network); destination(d_udp); };',
      ].join('\n'),
    );
  });
  after(() => syslogNg?.stop());

  test('syslog-ng: syslog() (octet-counted, a newline inside the frame) and network() over TCP and UDP', async () => {
    const marker = word('ngdefault');
    await logger(['-u', syslogNg.socket, '-t', 'sshd', '-i', '-p', 'authpriv.err', '--', `login refused ${marker}`]);
    const lines = await stored(marker, 3, keyed, keyed.org.serviceKey).catch((error) => {
      throw new Error(`${error}\nsyslog-ng said:\n${syslogNg.output()}`);
    });
    for (const line of lines) {
      assert.equal(line._line, `login refused ${marker}`);
      assert.equal(line._host, HOST);
      assert.equal(line._app, 'sshd');
      assert.equal(line.level, 'ERROR');
    }
  });

  test('syslog-ng adding Mezmo\'s structured data to route by key, and a wrong key dropped even with the fallback set', async () => {
    const marker = word('ngkey');
    const other = await keyed.createOrg('routed');
    const { tcp } = keyed.running.syslogPorts;
    const routed = await startSyslogNg(
      [
        `rewrite r_mezmo { set("${other.ingestionKey}" value(".SDATA.logdna@48950.key")); set("ng,routed" value(".SDATA.logdna@48950.tags")); };`,
        `rewrite r_wrong { set("wrong-${other.ingestionKey}" value(".SDATA.logdna@48950.key")); };`,
        `destination d_keyed { syslog("127.0.0.1" transport("tcp") port(${tcp}) persist-name("d_keyed")); };`,
        `destination d_wrong { syslog("127.0.0.1" transport("tcp") port(${tcp}) persist-name("d_wrong")); };`,
        'log { source(s_local); rewrite(r_mezmo); destination(d_keyed); };',
        'log { source(s_local); rewrite(r_wrong); destination(d_wrong); };',
      ].join('\n'),
    );
    try {
      const before = await droppedCount(keyed, 'syslog-tcp', 'wrong-key');
      await logger(['-u', routed.socket, '-t', 'web', '-p', 'user.info', '--', `routed ${marker}`]);
      const [line] = await stored(marker, 1, keyed, other.serviceKey);
      assert.deepEqual(line.tags, ['ng', 'routed']);
      await eventually(async () => ((await droppedCount(keyed, 'syslog-tcp', 'wrong-key')) > before) || undefined, 10_000, 'the wrong key counted');
      assert.deepEqual(await exported(keyed, keyed.org.serviceKey, marker), [], 'not under the fallback key');
    } finally {
      await routed.stop();
    }
  });
});
