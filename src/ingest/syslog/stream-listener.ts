import net from 'node:net';
import tls from 'node:tls';
import type { FastifyBaseLogger } from 'fastify';
import { LIMITS } from '../../wire/limits.js';
import type { IngestProtocol } from '../intake.js';
import { SyslogDeframer } from './framing.js';
import { RateLimitedLog, type SyslogIntake } from './syslog-intake.js';
import { WritePipeline } from './write-pipeline.js';

/**
 * Bytes of one frame kept. A line is cut at LIMITS.lineBytes of message text later, as on HTTP;
 * the header and structured data before it get room of their own.
 */
export const MAX_FRAME_BYTES = LIMITS.lineBytes + 8 * 1024;

/** Per connection: read frames held while one batch is written, before reading stops. */
const MAX_HELD_BYTES = 4 * 1024 * 1024;
const MAX_BATCH_MESSAGES = 20_000;

/**
 * A connection that sends nothing for this long is closed: a sender that went away without a
 * FIN (a host switched off, a NAT entry forgotten) would otherwise hold its socket for ever.
 * Senders reconnect when they next have something to send.
 */
export const IDLE_TIMEOUT_MS = 10 * 60_000;

/** Connections one listener keeps open; more are closed as they arrive, so a flood cannot use up the file descriptors. */
export const MAX_CONNECTIONS = 10_000;

/**
 * Connections one listener keeps open from one address (LOGSTEAD_SYSLOG_MAX_CONNECTIONS_PER_ADDRESS),
 * so that one host cannot take every place under MAX_CONNECTIONS. A sender opens one connection per
 * action; this leaves room for many hosts behind one NAT address.
 */
export const MAX_CONNECTIONS_PER_ADDRESS = 1_000;

export interface StreamListener {
  port: number;
  close(): Promise<void>;
}

/**
 * Accepts connections on host:port (net or tls), at most `maxConnections` at once and
 * `maxConnectionsPerAddress` from one address, and closes them and waits for their writes on
 * close. An error of the server itself (accept failing for want of file descriptors) is logged
 * rather than thrown, as nothing would catch it.
 */
export async function listenStream(
  server: net.Server,
  host: string,
  port: number,
  connections: { close(): Promise<void> },
  options: { log: FastifyBaseLogger; maxConnections?: number; maxConnectionsPerAddress?: number },
): Promise<StreamListener> {
  const errorLog = new RateLimitedLog(10_000);
  capPerAddress(server, options.maxConnectionsPerAddress ?? MAX_CONNECTIONS_PER_ADDRESS, (address, limit) =>
    errorLog.record(`per-address:${address}`, 1, (count) =>
      options.log.warn({ port: (server.address() as net.AddressInfo | null)?.port, address, connections: count, maxConnectionsPerAddress: limit }, 'syslog connections refused: their address has as many open as it may'),
    ),
  );
  const bound = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
  server.on('error', (error: NodeJS.ErrnoException) =>
    errorLog.record(`error:${error.code}`, 1, (count) => options.log.error({ err: error, port: bound, errors: count }, 'syslog listener error')),
  );
  server.maxConnections = options.maxConnections ?? MAX_CONNECTIONS;
  // Node closes a connection past maxConnections as it arrives, and says so with 'drop'.
  server.on('drop', () =>
    errorLog.record('drop', 1, (count) =>
      options.log.warn({ port: bound, connections: count, maxConnections: server.maxConnections }, 'syslog connections refused: the listener has as many open as it keeps'),
    ),
  );
  return {
    port: bound,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await connections.close();
      await closed;
    },
  };
}

/**
 * Closes a connection as it arrives when its address already has `limit` open. The server's own
 * 'connection' handlers (the accept function, or TLS's, which starts the handshake) are taken over
 * and run only for a connection let in, so a refused one costs no handshake and no session.
 */
function capPerAddress(server: net.Server, limit: number, refused: (address: string, limit: number) => void): void {
  const open = new Map<string, number>();
  const handlers = server.listeners('connection') as ((socket: net.Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: net.Socket) => {
    const address = socket.remoteAddress?.replace(/^::ffff:/, '') ?? 'unknown';
    const count = open.get(address) ?? 0;
    if (count >= limit) {
      socket.destroy();
      refused(address, limit);
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
    for (const handler of handlers) handler.call(server, socket);
  });
}

/** The connections a listener has open, so that closing it ends each after its writes. */
export class OpenConnections {
  private readonly open = new Set<{ end(): Promise<void> }>();

  add(connection: { end(): Promise<void> }): () => void {
    this.open.add(connection);
    return () => this.open.delete(connection);
  }

  async close(): Promise<void> {
    await Promise.all([...this.open].map((connection) => connection.end()));
  }
}

/**
 * Syslog over TCP or TLS (RFC 6587 framing, RFC 5425 over TLS): each connection's frames go
 * through a write pipeline to the syslog intake. Plain syslog acknowledges nothing, so a full store
 * is felt by the sender only as TCP's back-pressure: the socket is paused while its pipeline is full.
 */
export function acceptSyslogStream(
  socket: net.Socket,
  deps: { protocol: IngestProtocol; intake: SyslogIntake; log: FastifyBaseLogger; idleTimeoutMs?: number },
  connections: OpenConnections,
): void {
  const peer = { address: socket.remoteAddress?.replace(/^::ffff:/, '') ?? 'unknown' };
  const deframer = new SyslogDeframer({ maxMessageBytes: MAX_FRAME_BYTES });
  let ending = false;
  const pipeline = new WritePipeline<string>({
    write: async (messages) => void (await deps.intake.store(deps.protocol, messages, peer, { waitForRoom: true })),
    sizeOf: (message) => message.length,
    maxBatchItems: MAX_BATCH_MESSAGES,
    maxHeldBytes: MAX_HELD_BYTES,
    onFull: (full) => {
      if (full) socket.pause();
      else if (!ending) socket.resume();
    },
    onError: (error) => deps.log.warn({ err: error, protocol: deps.protocol }, 'syslog messages lost: their write failed'),
  });
  const end = async () => {
    ending = true;
    socket.pause();
    await pipeline.drained();
    socket.destroy();
  };
  const forget = connections.add({ end });
  socket.setNoDelay(true);
  const idleTimeoutMs = deps.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
  socket.setTimeout(idleTimeoutMs);
  socket.on('timeout', () => {
    if (ending) return;
    // Paused while its pipeline is full, the sender is held back, not idle: wait again.
    if (pipeline.isFull) socket.setTimeout(idleTimeoutMs);
    else void end();
  });
  socket.on('data', (chunk: Buffer) => {
    // Decoded at once: the strings are what is held, never the chunk the frames were cut from.
    pipeline.push(deframer.push(chunk).map((frame) => frame.bytes.toString('utf8')));
  });
  socket.on('error', () => socket.destroy()); // a reset peer: what was read is still written
  socket.on('close', () => {
    forget();
    if (deframer.unfinishedBytes > 0) deps.intake.drop(deps.protocol, 'truncated-frame', 1, peer);
  });
}

/** Starts the TCP listener (LOGSTEAD_SYSLOG_TCP_PORT). */
export function syslogTcpServer(deps: { intake: SyslogIntake; log: FastifyBaseLogger; idleTimeoutMs?: number }, connections: OpenConnections): net.Server {
  return net.createServer((socket) => acceptSyslogStream(socket, { ...deps, protocol: 'syslog-tcp' }, connections));
}

/**
 * The TLS listener (RFC 5425; LOGSTEAD_SYSLOG_TLS_PORT with a certificate and key). A handshake
 * that fails is counted and logged (rate-limited), and the connection closed.
 */
export function syslogTlsServer(
  deps: { intake: SyslogIntake; log: FastifyBaseLogger; cert: Buffer; key: Buffer; idleTimeoutMs?: number },
  connections: OpenConnections,
): tls.Server {
  const server = tls.createServer({ cert: deps.cert, key: deps.key, minVersion: 'TLSv1.2' }, (socket) =>
    acceptSyslogStream(socket, { intake: deps.intake, log: deps.log, protocol: 'syslog-tls', idleTimeoutMs: deps.idleTimeoutMs }, connections),
  );
  server.on('tlsClientError', (_error, socket) => {
    deps.intake.drop('syslog-tls', 'tls-handshake', 1, { address: socket.remoteAddress ?? 'unknown' });
    socket.destroy();
  });
  return server;
}
