import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { eventually } from '../../testing/harness.js';
import { failingIntake, recordingLog, syslogIntakeOver } from '../../testing/syslog-intake.js';
import { OpenConnections, listenStream, syslogTcpServer } from './stream-listener.js';

/**
 * The TCP listener on loopback: a connection that sends nothing for the idle timeout is closed
 * (what it sent is still stored), connections past the cap are closed as they arrive, and an
 * error of the server itself is logged rather than thrown.
 */

async function startTcp(options: { idleTimeoutMs?: number; maxConnections?: number; maxConnectionsPerAddress?: number } = {}) {
  const fake = failingIntake();
  const { syslog } = syslogIntakeOver(fake.intake);
  const log = recordingLog();
  const connections = new OpenConnections();
  const server = syslogTcpServer({ intake: syslog, log, idleTimeoutMs: options.idleTimeoutMs }, connections);
  const listener = await listenStream(server, '127.0.0.1', 0, connections, { log, maxConnections: options.maxConnections, maxConnectionsPerAddress: options.maxConnectionsPerAddress });
  return { server, listener, log, written: fake.written };
}

function connect(port: number, localAddress?: string) {
  const socket = net.connect({ host: '127.0.0.1', port, localAddress });
  const client = { socket, closed: new Promise<void>((resolve) => socket.on('close', () => resolve())), isClosed: false };
  void client.closed.then(() => (client.isClosed = true));
  socket.on('error', () => {});
  return client;
}

const openConnections = (server: net.Server) =>
  new Promise<number>((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count))));

test('a connection idle for the idle timeout is closed, and what it sent is stored', async () => {
  const { listener, written } = await startTcp({ idleTimeoutMs: 200 });
  const client = connect(listener.port);
  const message = Buffer.from('<14>1 - host app - - [logdna@48950 key="k1"] before going quiet');
  client.socket.write(Buffer.concat([Buffer.from(`${message.length} `), message]));
  const startedAt = Date.now();
  await client.closed;
  assert.ok(Date.now() - startedAt < 3000, 'closed by the idle timeout, not by anything else');
  assert.deepEqual(written, [{ account: 'org-k1', lines: 1 }]);
  await listener.close();
});

test('past the connection cap a new connection is closed at once, and logged; the others stay open', async () => {
  const { server, listener, log } = await startTcp({ maxConnections: 2 });
  const first = connect(listener.port);
  const second = connect(listener.port);
  await eventually(async () => ((await openConnections(server)) === 2 ? true : undefined), 5000, 'two connections open');
  const third = connect(listener.port);
  await third.closed;
  assert.ok(log.lines.some((line) => line.level === 'warn' && /connections refused/.test(line.message ?? '')));
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(first.isClosed || second.isClosed, false);
  assert.equal(await openConnections(server), 2);
  first.socket.destroy();
  second.socket.destroy();
  await listener.close();
});

test('past the cap for one address its new connection is closed at once, and logged; another address still connects, and a place freed is taken again', async () => {
  const { server, listener, log, written } = await startTcp({ maxConnectionsPerAddress: 2 });
  const first = connect(listener.port);
  const second = connect(listener.port);
  await eventually(async () => ((await openConnections(server)) === 2 ? true : undefined), 5000, 'two connections open');
  const third = connect(listener.port);
  await eventually(() => (third.isClosed ? true : undefined), 3000, 'the third connection from the address closed');
  assert.ok(log.lines.some((line) => line.level === 'warn' && /their address has as many open as it may/.test(line.message ?? '')));
  // 127.0.0.2 is loopback too, and another address.
  const other = connect(listener.port, '127.0.0.2');
  await eventually(async () => ((await openConnections(server)) === 3 ? true : undefined), 5000, 'the other address let in');
  const message = Buffer.from('<14>1 - host app - - [logdna@48950 key="k2"] from another address');
  other.socket.write(Buffer.concat([Buffer.from(`${message.length} `), message]));
  await eventually(() => (written.length === 1 ? true : undefined), 5000, 'its message stored');
  first.socket.destroy();
  await first.closed;
  await eventually(async () => ((await openConnections(server)) === 2 ? true : undefined), 5000, 'the first gone');
  const again = connect(listener.port);
  await eventually(async () => ((await openConnections(server)) === 3 ? true : undefined), 5000, 'a new one from the first address');
  assert.equal(again.isClosed || second.isClosed || other.isClosed, false);
  for (const client of [second, other, again]) client.socket.destroy();
  await listener.close();
});

test('an error of the listening server (accept out of file descriptors) is logged, not thrown', async () => {
  const { server, listener, log } = await startTcp();
  server.emit('error', Object.assign(new Error('accept EMFILE'), { code: 'EMFILE' }));
  assert.ok(log.lines.some((line) => line.level === 'error' && line.message === 'syslog listener error'));
  const client = connect(listener.port);
  await new Promise<void>((resolve) => client.socket.on('connect', () => resolve()));
  client.socket.destroy();
  await listener.close();
});
