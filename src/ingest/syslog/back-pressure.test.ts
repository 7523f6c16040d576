import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { type TestServer, eventually, jsonLines, request, startTestServer } from '../../testing/harness.js';

/**
 * Plain TCP acknowledges nothing, so a full store must hold the sender back rather than drop: with
 * a store queue of one line and no wait for room (every write but one finds the store full), a
 * burst over one connection and over several is stored whole, nothing dropped.
 */

let server: TestServer;
before(async () => {
  server = await startTestServer({ LOGSTEAD_SYSLOG_TCP_PORT: '0', LOGSTEAD_MAX_QUEUED_LINES: '1', LOGSTEAD_INGEST_WAIT_MS: '0' });
});
after(() => server.close());

/** Lines stored over syslog TCP, as the server counts them (export answers at most 10,000 lines a call). */
async function storedOverTcp(): Promise<number> {
  const text = (await request(`${server.url}/metrics`)).text;
  return Number(/^logstead_ingest_lines_total\{protocol="syslog-tcp"\} (\d+)/m.exec(text)?.[1] ?? 0);
}

async function overloadDrops(): Promise<number> {
  const text = (await request(`${server.url}/metrics`)).text;
  return Number(/^logstead_syslog_dropped_messages_total\{protocol="syslog-tcp",reason="overload"\} (\d+)/m.exec(text)?.[1] ?? 0);
}

function burst(marker: string, from: number, count: number): Promise<void> {
  const frames = Array.from({ length: count }, (_, index) => {
    const message = Buffer.from(`<14>1 - burst app - - [logdna@48950 key="${server.org.ingestionKey}"] ${marker} n=${from + index} ${'x'.repeat(200)}`);
    return Buffer.concat([Buffer.from(`${message.length} `), message]);
  });
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port: server.running.syslogPorts.tcp! }, () => socket.end(Buffer.concat(frames)));
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
}

test('a burst larger than the store can take at once is held back by TCP, and stored whole', async () => {
  const marker = `burst${randomBytes(4).toString('hex')}`;
  await Promise.all([burst(marker, 0, 30_000), burst(marker, 30_000, 10_000), burst(marker, 40_000, 10_000)]);
  await eventually(async () => ((await storedOverTcp()) === 50_000 ? true : undefined), 60_000, 'all 50,000 messages stored');
  const newest = jsonLines((await request(`${server.url}/v1/export?from=0&to=${Date.now() + 60_000}&size=10&query=${marker}`, { headers: { servicekey: server.org.serviceKey } })).text);
  assert.equal(newest.length, 10, 'and searchable');
  assert.equal(await overloadDrops(), 0, 'TCP never drops for a full store');
});
