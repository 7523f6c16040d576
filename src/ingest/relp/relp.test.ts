import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type TestServer, eventually, jsonLines, request, startTestServer } from '../../testing/harness.js';
import { exited, serveProcess } from '../../testing/process.js';
import { sendersMissing, startRsyslog } from '../../testing/syslog-daemons.js';
import { freePort } from '../../testing/free-port.js';

/**
 * RELP as rsyslog's omrelp speaks it. On a raw connection: the open handshake, an acknowledgement
 * only once the message can be searched (so after the durable write), the answers to unknown
 * commands and broken frames. With the real sender: Logstead killed with -9 in the middle of a
 * stream loses nothing rsyslog was told was stored, and duplicates at most one window.
 */

const skip = sendersMissing(['rsyslog', 'rsyslog-relp', 'logger']);
const word = (prefix: string) => `${prefix}${randomBytes(4).toString('hex')}`;

/** A RELP client on a raw socket: sends frames, collects the server's. */
class RelpClient {
  private received = '';
  private readonly socket: net.Socket;
  readonly closed: Promise<void>;

  constructor(port: number) {
    this.socket = net.connect({ host: '127.0.0.1', port });
    this.socket.on('data', (chunk) => (this.received += chunk.toString('utf8')));
    this.closed = new Promise((resolve) => this.socket.on('close', () => resolve()));
    this.socket.on('error', () => {});
  }

  send(txnr: number, command: string, data = ''): void {
    const bytes = Buffer.byteLength(data);
    this.socket.write(bytes > 0 ? `${txnr} ${command} ${bytes} ${data}\n` : `${txnr} ${command} 0\n`);
  }

  raw(text: string): void {
    this.socket.write(text);
  }

  /** The response to `txnr`, once it arrives: its data. */
  async response(txnr: number): Promise<string> {
    return eventually(() => {
      const match = new RegExp(`(?:^|\\n)${txnr} rsp (\\d+) ?`).exec(this.received);
      if (!match) return undefined;
      const start = match.index + match[0].length;
      const data = this.received.slice(start, start + Number(match[1]));
      return data.length === Number(match[1]) ? data : undefined;
    }, 10_000, `the response to ${txnr}`);
  }

  get text(): string {
    return this.received;
  }

  end(): void {
    this.socket.end();
  }
}

const OPEN_OFFERS = 'relp_version=0\nrelp_software=test\ncommands=syslog';

describe('RELP on a raw connection', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ LOGSTEAD_RELP_PORT: '0' });
  });
  after(() => server.close());
  const port = () => server.running.syslogPorts.relp!;

  async function searchable(marker: string): Promise<number> {
    const reply = await request(`${server.url}/v1/export?from=0&to=${Date.now() + 60_000}&query=${marker}`, { headers: { servicekey: server.org.serviceKey } });
    return jsonLines(reply.text).length;
  }

  test('open offers syslog; each message is acknowledged once it can be searched; close answers last', async () => {
    const client = new RelpClient(port());
    client.send(1, 'open', OPEN_OFFERS);
    const offers = await client.response(1);
    assert.match(offers, /^200 OK\n/);
    assert.match(offers, /commands=syslog/);
    const markers = [word('relp'), word('relp'), word('relp')];
    markers.forEach((marker, index) => client.send(2 + index, 'syslog', `<13>1 - host-r app-r 7 - [logdna@48950 key="${server.org.ingestionKey}" tags="relp"] ${marker}`));
    for (let index = 0; index < markers.length; index++) {
      assert.equal(await client.response(2 + index), '200 OK');
      // Acknowledged means written: searchable at once, no waiting.
      assert.equal(await searchable(markers[index]), 1, `${markers[index]} is stored when acknowledged`);
    }
    client.send(9, 'close');
    assert.equal(await client.response(9), '');
    await client.closed;
  });

  test('a message before open, and an unknown command, get 500; a broken frame ends the session with serverclose', async () => {
    const client = new RelpClient(port());
    client.send(1, 'syslog', '<13>1 - h a - - - too early');
    assert.match(await client.response(1), /^500 /);
    client.send(2, 'open', OPEN_OFFERS);
    await client.response(2);
    client.send(3, 'starttls');
    assert.match(await client.response(3), /^500 unknown command/);
    client.raw('4 syslog 99999999999 x\n');
    await client.closed;
    assert.match(client.text, /0 serverclose 0\n$/);
    assert.equal((await request(`${server.url}/healthz`)).status, 200);
  });

  test('an open that does not offer syslog is refused', async () => {
    const client = new RelpClient(port());
    client.send(1, 'open', 'relp_version=0\ncommands=other');
    assert.match(await client.response(1), /^500 /);
    await client.closed;
  });
});


test('rsyslog omrelp across a kill -9: every message stored, at most one window twice', { skip }, async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-relp-kill-'));
  const relpPort = await freePort();
  const env = { LOGSTEAD_RELP_PORT: String(relpPort) };
  let logstead = await serveProcess(dataDir, env);
  const credentials = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
  const WINDOW = 128;
  // As the README's RELP configuration: retry forever while Logstead is away, holding messages in a queue.
  const rsyslog = await startRsyslog(
    [
      'module(load="omrelp")',
      `template(name="Mezmo" type="string" string="<%PRI%>%protocol-version% %timestamp:::date-rfc3339% %HOSTNAME% %app-name% %procid% %msgid% [logdna@48950 key=\\"${credentials.ingestionKey}\\"] %msg%\\n")`,
      `action(type="omrelp" target="127.0.0.1" port="${relpPort}" template="Mezmo" windowSize="${WINDOW}" queue.type="LinkedList" queue.size="100000" action.resumeRetryCount="-1" action.resumeInterval="1")`,
    ].join('\n'),
  );
  const run = word('killrun');
  const TOTAL = 4000;
  const feeder = spawn('/usr/bin/logger', ['-u', rsyslog.socket, '-t', 'relpkill'], { stdio: ['pipe', 'ignore', 'inherit'] });
  try {
    const count = async (url: string) => {
      const reply = await request(`${url}/v1/export?from=0&to=${Date.now() + 60_000}&query=${run}`, { headers: { servicekey: credentials.serviceKey } });
      return jsonLines(reply.text).map((line) => line._line as string);
    };
    const feed = (async () => {
      for (let sent = 0; sent < TOTAL; sent += 50) {
        feeder.stdin!.write(Array.from({ length: 50 }, (_, index) => `${run} seq=${sent + index}\n`).join(''));
        await new Promise((resolve) => setTimeout(resolve, 15));
      }
      feeder.stdin!.end();
    })();
    await eventually(async () => ((await count(logstead.url)).length >= TOTAL / 4 ? true : undefined), 60_000, 'a quarter stored');
    logstead.child.kill('SIGKILL');
    await exited(logstead.child);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // rsyslog finds the session gone and queues
    logstead = await serveProcess(dataDir, env);
    await feed;
    const lines = await eventually(
      async () => {
        const found = await count(logstead.url);
        return new Set(found).size >= TOTAL ? found : undefined;
      },
      120_000,
      `all ${TOTAL} messages stored`,
    ).catch((error) => {
      throw new Error(`${error}\nrsyslog said:\n${rsyslog.output()}`);
    });
    const seen = new Set(lines);
    const missing = Array.from({ length: TOTAL }, (_, seq) => `${run} seq=${seq}`).filter((line) => !seen.has(line));
    assert.deepEqual(missing, []);
    assert.ok(lines.length - seen.size <= WINDOW, `${lines.length - seen.size} duplicates, at most one window (${WINDOW})`);
  } finally {
    feeder.kill();
    await rsyslog.stop();
    logstead.child.kill('SIGTERM');
    await exited(logstead.child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
