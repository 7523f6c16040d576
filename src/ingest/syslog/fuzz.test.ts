import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import net from 'node:net';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { type TestServer, eventually, jsonLines, request, startTestServer } from '../../testing/harness.js';
import { RelpDeframer, RelpFrameError } from '../relp/frames.js';
import { SyslogDeframer } from './framing.js';
import { parseSyslog } from './message.js';
import { syslogLine } from './to-line.js';

/**
 * Property-based checks of the syslog and RELP readers with hostile input, seeded (replay a failure
 * with LOGSTEAD_FUZZ_SEED): the message parser and the line mapping never throw; the stream
 * deframer reads the same frames however the bytes are split into chunks; the RELP deframer throws
 * nothing but RelpFrameError. Then the listeners of a running server take random bytes on every
 * port and stay up, and a good message sent afterwards is stored.
 */

const SEED = Number(process.env.LOGSTEAD_FUZZ_SEED ?? 20261126);
const NOW = Date.parse('2026-11-26T12:00:00Z');

/** Strings that look like syslog often enough to reach deep into the parser. */
const syslogish = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc
    .tuple(
      fc.integer({ min: 0, max: 200 }),
      fc.constantFrom('1', '0', '', '12', 'x'),
      fc.constantFrom('2026-11-26T10:00:00Z', '-', 'Nov 26 10:00:00', 'Nov  6 10:00:00', '2026-13-99T99:99:99Z', ''),
      fc.constantFrom('host', '-', '', 'app[1]:'),
      fc.array(fc.constantFrom('[a@1 x="1"]', '[logdna@48950 key="k" tags="a,b"]', '[bad', '[x y=]', '[x y="\\"]"]', '-', ' ', '\ufeff', '"', ']'), { maxLength: 4 }),
      fc.string({ maxLength: 40 }),
    )
    .map(([pri, version, time, host, sd, msg]) => `<${pri}>${version} ${time} ${host} app 1 id ${sd.join('')} ${msg}`),
);

test('the parser and the mapping never throw, and never put the key in the line', () => {
  fc.assert(
    fc.property(syslogish, (text) => {
      const line = syslogLine(parseSyslog(text, NOW));
      assert.equal(typeof line.line.line, 'string');
      if (line.key !== undefined && line.key.length > 3) assert.ok(!JSON.stringify(line.line.meta ?? {}).includes(`"key":"${line.key}"`));
    }),
    { seed: SEED, numRuns: 3000 },
  );
});

test('the stream deframer reads the same frames however the stream is chunked', () => {
  const frame = fc.oneof(
    syslogish.map((text) => `${Buffer.byteLength(text)} ${text}`),
    syslogish.map((text) => `${text.replace(/\n/g, ' ')}\n`),
    fc.string({ unit: 'binary', maxLength: 20 }),
  );
  fc.assert(
    fc.property(fc.array(frame, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 6 }), (frames, cuts) => {
      const bytes = Buffer.from(frames.join(''));
      const whole = new SyslogDeframer({ maxMessageBytes: 64 });
      const expected = whole.push(bytes).map((f) => f.bytes.toString('latin1'));
      const chunked = new SyslogDeframer({ maxMessageBytes: 64 });
      const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
      const got: string[] = [];
      let from = 0;
      for (const point of [...points, bytes.length]) {
        got.push(...chunked.push(bytes.subarray(from, point)).map((f) => f.bytes.toString('latin1')));
        from = point;
      }
      assert.deepEqual(got, expected);
      assert.equal(chunked.unfinishedBytes, whole.unfinishedBytes);
    }),
    { seed: SEED, numRuns: 2000 },
  );
});

test('the RELP deframer throws nothing but RelpFrameError', () => {
  const relpish = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 80 }),
    fc
      .tuple(fc.nat(2_000_000_000), fc.constantFrom('open', 'syslog', 'close', 'rsp', 'x', ''), fc.string({ maxLength: 30 }), fc.integer({ min: -1, max: 3 }))
      .map(([txnr, command, data, skew]) => `${txnr} ${command} ${Buffer.byteLength(data) + skew} ${data}\n`),
  );
  fc.assert(
    fc.property(fc.array(relpish, { maxLength: 8 }), (parts) => {
      const deframer = new RelpDeframer(1024);
      try {
        for (const part of parts) deframer.push(Buffer.from(part));
      } catch (error) {
        assert.ok(error instanceof RelpFrameError, String(error));
      }
    }),
    { seed: SEED, numRuns: 2000 },
  );
});

let server: TestServer;
before(async () => {
  server = await startTestServer({ LOGSTEAD_SYSLOG_TCP_PORT: '0', LOGSTEAD_SYSLOG_UDP_PORT: '0', LOGSTEAD_RELP_PORT: '0' });
});
after(() => server.close());

async function sendTcp(port: number, bytes: Buffer): Promise<void> {
  await new Promise<void>((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => socket.end(bytes));
    socket.on('data', () => {});
    socket.on('error', () => resolve());
    socket.on('close', () => resolve());
  });
}

test('every listener takes random bytes and stays up; a good message afterwards is stored', async () => {
  const { tcp, udp, relp } = server.running.syslogPorts;
  const udpSocket = dgram.createSocket('udp4');
  await fc.assert(
    fc.asyncProperty(fc.uint8Array({ maxLength: 2048 }), async (bytes) => {
      const buffer = Buffer.from(bytes);
      await sendTcp(tcp!, buffer);
      await sendTcp(relp!, buffer);
      await new Promise<void>((resolve) => udpSocket.send(buffer, udp!, '127.0.0.1', () => resolve()));
    }),
    { seed: SEED, numRuns: 150 },
  );
  udpSocket.close();
  const marker = `fuzzsurvivor${randomBytes(4).toString('hex')}`;
  await sendTcp(tcp!, Buffer.from(`<13>1 - h app - - [logdna@48950 key="${server.org.ingestionKey}"] ${marker}\n`));
  const health = await request(`${server.url}/healthz`);
  assert.equal(health.status, 200);
  await eventually(async () => {
    const reply = await request(`${server.url}/v1/export?from=0&to=${Date.now() + 60_000}&query=${marker}`, { headers: { servicekey: server.org.serviceKey } });
    return jsonLines(reply.text).length === 1 || undefined;
  }, 10_000, 'the good message stored');
});

async function dropped(reason: string): Promise<number> {
  const text = (await request(`${server.url}/metrics`)).text;
  return Number(new RegExp(`^logstead_syslog_dropped_messages_total\\{protocol="syslog-tcp",reason="${reason}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
}

test('invalid UTF-8 is stored with U+FFFD; a frame cut short by the connection closing is counted, and what came before it stored', async () => {
  const marker = `badbytes${randomBytes(4).toString('hex')}`;
  const key = server.org.ingestionKey;
  const truncatedBefore = await dropped('truncated-frame');
  const good = Buffer.concat([Buffer.from(`<13>1 - h app - - [logdna@48950 key="${key}"] ${marker} `), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(' end')]);
  const cut = Buffer.from(`500 <13>1 - h app - - [logdna@48950 key="${key}"] ${marker} never complete`);
  await sendTcp(server.running.syslogPorts.tcp!, Buffer.concat([Buffer.from(`${good.length} `), good, cut]));
  const [line] = await eventually(async () => {
    const reply = await request(`${server.url}/v1/export?from=0&to=${Date.now() + 60_000}&query=${marker}`, { headers: { servicekey: server.org.serviceKey } });
    const lines = jsonLines(reply.text);
    return lines.length > 0 ? lines : undefined;
  }, 10_000, 'the complete message stored');
  assert.equal(line._line, `${marker} \ufffd\ufffd\ufffd end`);
  await eventually(async () => ((await dropped('truncated-frame')) > truncatedBefore ? true : undefined), 5000, 'the cut frame counted');
  const stored = await request(`${server.url}/v1/export?from=0&to=${Date.now() + 60_000}&query=${encodeURIComponent('never complete')}`, { headers: { servicekey: server.org.serviceKey } });
  assert.deepEqual(jsonLines(stored.text), []);
});

test('while the organisation is suspended its messages are dropped and counted; after the resume they are stored', async () => {
  const headers = { servicekey: server.org.serviceKey, 'content-type': 'application/json' };
  const { token } = (await request(`${server.url}/v1/config/ingestion/suspend`, { method: 'POST', headers, body: '{}' })).json;
  assert.equal((await request(`${server.url}/v1/config/ingestion/suspend/confirm`, { method: 'POST', headers, body: JSON.stringify({ token }) })).status, 200);
  const before = await dropped('suspended');
  const marker = `suspended${randomBytes(4).toString('hex')}`;
  const send = () => sendTcp(server.running.syslogPorts.tcp!, Buffer.from(`<13>1 - h app - - [logdna@48950 key="${server.org.ingestionKey}"] ${marker}\n`));
  await send();
  await eventually(async () => ((await dropped('suspended')) > before ? true : undefined), 5000, 'the suspended message counted');
  assert.equal((await request(`${server.url}/v1/config/ingestion/resume`, { method: 'POST', headers, body: '{}' })).status, 200);
  await send();
  const lines = await eventually(async () => {
    const found = jsonLines((await request(`${server.url}/v1/export?from=0&to=${Date.now() + 60_000}&query=${marker}`, { headers: { servicekey: server.org.serviceKey } })).text);
    return found.length > 0 ? found : undefined;
  }, 10_000, 'the message after the resume stored');
  assert.equal(lines.length, 1, 'only the one sent after the resume');
});
