import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { eventually } from '../../testing/harness.js';
import { failingIntake, recordingLog, syslogIntakeOver } from '../../testing/syslog-intake.js';
import { OpenConnections, listenStream } from '../syslog/stream-listener.js';
import type { RetryPolicy } from '../syslog/syslog-intake.js';
import { errors } from '../../http/errors.js';
import { type RelpOptions, relpServer } from './listener.js';

/**
 * The RELP listener on loopback over a syslog intake whose store fails on cue: each message is
 * acknowledged by its own outcome, so one whose write still failed when the listener stopped is
 * left for the sender to send again while the others are acknowledged. A session that sends
 * nothing is ended, and a peer that does not close its side once the session ended is cut off.
 */

async function startRelp(options: RelpOptions & { failures?: Record<string, unknown[]>; retry?: Partial<RetryPolicy> } = {}) {
  const { syslog } = syslogIntakeOver(failingIntake(options.failures).intake, undefined, options.retry);
  const log = recordingLog();
  const connections = new OpenConnections();
  const server = relpServer({ intake: syslog, log, ...options }, connections);
  const listener = await listenStream(server, '127.0.0.1', 0, connections, { log });
  return { syslog, server, listener };
}

/** A raw RELP client; `allowHalfOpen` keeps its side open when the server closes its own. */
function connect(port: number, allowHalfOpen = false) {
  const socket = net.connect({ host: '127.0.0.1', port, allowHalfOpen });
  const client = { socket, received: '', closed: new Promise<void>((resolve) => socket.on('close', () => resolve())) };
  socket.on('data', (chunk) => (client.received += chunk.toString('utf8')));
  socket.on('error', () => {});
  return client;
}

function frame(txnr: number, command: string, data = ''): string {
  return data === '' ? `${txnr} ${command} 0\n` : `${txnr} ${command} ${Buffer.byteLength(data)} ${data}\n`;
}

const OPEN = frame(1, 'open', 'relp_version=0\nrelp_software=test\ncommands=syslog');

test('a message whose write is still being retried as the listener stops is not acknowledged; the others are', async () => {
  const { syslog, listener } = await startRelp({
    failures: { 'org-down': Array.from({ length: 1000 }, () => errors.storeUnavailable()) },
    retry: { attempts: 1000, firstDelayMs: 50, maxDelayMs: 100 },
  });
  const client = connect(listener.port);
  client.socket.write(OPEN);
  client.socket.write(frame(2, 'syslog', '<14>1 - h a - - [logdna@48950 key="up"] stored'));
  client.socket.write(frame(3, 'syslog', '<14>1 - h a - - [logdna@48950 key="down"] failing'));
  // Long enough for the failing write to be retried a few times.
  await new Promise((resolve) => setTimeout(resolve, 500));
  syslog.stop();
  await listener.close();
  await client.closed;
  assert.match(client.received, /^1 rsp \d+ 200 OK\n/);
  assert.match(client.received, /\n2 rsp 6 200 OK\n/);
  assert.doesNotMatch(client.received, /\n3 rsp /, 'the failed message is left for the sender to resend');
  assert.match(client.received, /0 serverclose 0\n$/);
});

test('each message is answered by its own outcome: 500 for one given up on (unavailable through every try, or a bug), 200 for the rest', async () => {
  const { listener } = await startRelp({
    failures: { 'org-down': Array.from({ length: 100 }, () => errors.storeUnavailable()), 'org-bug': [new TypeError('a bug')] },
  });
  const client = connect(listener.port);
  client.socket.write(OPEN);
  client.socket.write(frame(2, 'syslog', '<14>1 - h a - - [logdna@48950 key="down"] failing'));
  client.socket.write(frame(3, 'syslog', '<14>1 - h a - - [logdna@48950 key="up"] stored'));
  client.socket.write(frame(4, 'syslog', '<14>1 - h a - - [logdna@48950 key="bug"] buggy'));
  await eventually(() => (/\n4 rsp /.test(client.received) && /\n2 rsp /.test(client.received) ? true : undefined), 5000, 'the answers');
  assert.match(client.received, /\n2 rsp \d+ 500 not stored/);
  assert.match(client.received, /\n3 rsp 6 200 OK\n/);
  assert.match(client.received, /\n4 rsp \d+ 500 not stored/);
  client.socket.destroy();
  await listener.close();
});

test('a session that sends nothing for the idle timeout is ended with serverclose', async () => {
  const { listener } = await startRelp({ idleTimeoutMs: 200 });
  const client = connect(listener.port);
  client.socket.write(OPEN);
  await client.closed;
  assert.match(client.received, /^1 rsp \d+ 200 OK\n[^]*0 serverclose 0\n$/);
  await listener.close();
});

test('a peer that keeps its side open after close is cut off after the grace, so the listener can close', async () => {
  const { server, listener } = await startRelp({ closeGraceMs: 200 });
  const client = connect(listener.port, true);
  client.socket.write(OPEN);
  client.socket.write(frame(2, 'close'));
  await eventually(() => (/\n2 rsp 0\n/.test(client.received) ? true : undefined), 5000, 'the answer to close');
  const open = () => new Promise<number>((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
  await eventually(async () => ((await open()) === 0 ? true : undefined), 3000, 'the session socket destroyed');
  await listener.close();
  client.socket.destroy();
});

test('a peer that closes its side at once is not cut off later: the grace timer ends with the connection', async () => {
  const { server, listener } = await startRelp({ closeGraceMs: 300 });
  let serverSocket: net.Socket | undefined;
  server.on('connection', (socket: net.Socket) => (serverSocket = socket));
  const client = connect(listener.port);
  client.socket.write(OPEN);
  client.socket.write(frame(2, 'close'));
  await eventually(() => (/\n2 rsp 0\n/.test(client.received) ? true : undefined), 5000, 'the answer to close');
  client.socket.end();
  await client.closed;
  await eventually(() => (serverSocket?.closed ? true : undefined), 3000, 'the session socket closed');
  let destroyedAfterClose = 0;
  const destroy = serverSocket!.destroy.bind(serverSocket!);
  serverSocket!.destroy = (error?: Error) => {
    destroyedAfterClose++;
    return destroy(error);
  };
  await new Promise((resolve) => setTimeout(resolve, 500));
  await listener.close();
  assert.equal(destroyedAfterClose, 0, 'no grace timer left to fire on a closed connection');
});
