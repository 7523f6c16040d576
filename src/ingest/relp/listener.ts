import net from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { IDLE_TIMEOUT_MS, MAX_FRAME_BYTES, type OpenConnections } from '../syslog/stream-listener.js';
import type { SyslogIntake } from '../syslog/syslog-intake.js';
import { WritePipeline } from '../syslog/write-pipeline.js';
import { RelpDeframer, RelpFrameError, SERVER_CLOSE, relpOffers, relpResponse } from './frames.js';

/** Messages held per session while a batch is written; rsyslog's window (128 by default) stays far under it. */
const MAX_HELD_BYTES = 8 * 1024 * 1024;
const MAX_BATCH_MESSAGES = 20_000;

const OK = '200 OK';
/** The answer to a message given up on (RELP's response text is at most 80 characters). */
const NOT_STORED = '500 not stored: the log store is unavailable or failed';

/** Once a session has ended, how long the peer has to close its side before the socket is destroyed. */
const CLOSE_GRACE_MS = 5_000;

export interface RelpOptions {
  /** A session that sends nothing this long is ended (IDLE_TIMEOUT_MS by default). */
  idleTimeoutMs?: number;
  /** CLOSE_GRACE_MS by default. */
  closeGraceMs?: number;
}

/**
 * One RELP session: `open` is answered with the offers Logstead takes (syslog only); each `syslog`
 * frame is acknowledged (`rsp 200 OK`) only once its message is durably written, or dropped and
 * counted (its key, its organisation suspended). One given up on (the store unavailable through
 * every retry, or an unexpected error) is answered `500`. One whose write was still being retried
 * when Logstead stopped is left unacknowledged: the sender resends it, as whatever was in flight
 * when Logstead died, and nothing acknowledged is lost. `close` is answered after every acknowledgement.
 */
export function acceptRelp(socket: net.Socket, deps: { intake: SyslogIntake; log: FastifyBaseLogger } & RelpOptions, connections: OpenConnections): void {
  const peer = { address: socket.remoteAddress?.replace(/^::ffff:/, '') ?? 'unknown' };
  const deframer = new RelpDeframer(MAX_FRAME_BYTES);
  let opened = false;
  let ending = false;
  const send = (bytes: Buffer) => {
    if (!socket.destroyed) socket.write(bytes);
  };
  const pipeline = new WritePipeline<{ txnr: number; text: string }>({
    write: async (messages) => {
      const outcomes = await deps.intake.store('relp', messages.map(({ text }) => text), peer, { waitForRoom: true });
      // Stored or dropped on purpose is acknowledged; one given up on is answered with an error
      // (rsyslog logs it and does not send it again); one whose write was still being retried as
      // the listener stopped is not answered, so the sender sends it again when it reconnects.
      messages.forEach(({ txnr }, index) => {
        const outcome = outcomes[index];
        if (outcome === 'failed') send(relpResponse(txnr, NOT_STORED));
        else if (outcome !== 'interrupted') send(relpResponse(txnr, OK));
      });
    },
    sizeOf: ({ text }) => text.length,
    maxBatchItems: MAX_BATCH_MESSAGES,
    maxHeldBytes: MAX_HELD_BYTES,
    onFull: (full) => {
      if (full) socket.pause();
      else if (!ending) socket.resume();
    },
    // Left unacknowledged: the sender sends them again when it reconnects.
    onError: (error) => deps.log.warn({ err: error }, 'RELP messages not stored; left unacknowledged, the sender will resend them'),
  });
  let ended: Promise<void> | undefined;
  let closeGrace: NodeJS.Timeout | undefined;
  // Once: a session that a `close` ended is not ended again (with serverclose) by the stop.
  const endSession = (farewell: Buffer | undefined) =>
    (ended ??= (async () => {
      ending = true;
      socket.pause();
      await pipeline.drained();
      if (farewell) send(farewell);
      socket.end();
      // A peer that never closes its side would hold the socket (and the listener's close) for ever.
      if (!socket.destroyed) closeGrace = setTimeout(() => socket.destroy(), deps.closeGraceMs ?? CLOSE_GRACE_MS).unref();
    })());
  const forget = connections.add({ end: () => endSession(SERVER_CLOSE) });

  socket.setNoDelay(true);
  const idleTimeoutMs = deps.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
  socket.setTimeout(idleTimeoutMs);
  socket.on('timeout', () => {
    if (ending) return;
    // Paused while its pipeline is full, the sender is held back, not idle: wait again.
    if (pipeline.isFull) socket.setTimeout(idleTimeoutMs);
    else void endSession(SERVER_CLOSE);
  });
  socket.on('data', (chunk: Buffer) => {
    if (ending) return;
    let frames;
    try {
      frames = deframer.push(chunk);
    } catch (error) {
      if (!(error instanceof RelpFrameError)) throw error;
      deps.intake.drop('relp', 'bad-frame', 1, peer);
      void endSession(SERVER_CLOSE);
      return;
    }
    const messages: { txnr: number; text: string }[] = [];
    for (const frame of frames) {
      if (frame.command === 'syslog' && opened) {
        messages.push({ txnr: frame.txnr, text: frame.data.toString('utf8') });
        continue;
      }
      pipeline.push(messages.splice(0));
      if (frame.command === 'open') {
        const commands = relpOffers(frame.data).get('commands')?.split(',') ?? [];
        if (!commands.includes('syslog')) {
          send(relpResponse(frame.txnr, '500 this server takes only the syslog command'));
          void endSession(SERVER_CLOSE);
          return;
        }
        opened = true;
        send(relpResponse(frame.txnr, `${OK}\nrelp_version=0\nrelp_software=logstead\ncommands=syslog`));
      } else if (frame.command === 'close') {
        // Answered once everything before it is acknowledged.
        void endSession(relpResponse(frame.txnr, ''));
        return;
      } else if (frame.command === 'syslog') {
        send(relpResponse(frame.txnr, '500 the session is not open'));
      } else {
        send(relpResponse(frame.txnr, `500 unknown command ${frame.command}`));
      }
    }
    pipeline.push(messages);
  });
  socket.on('error', () => socket.destroy());
  socket.on('close', () => {
    // Closed before the grace ran out: nothing is left to cut off.
    clearTimeout(closeGrace);
    forget();
    if (deframer.unfinishedBytes > 0) deps.intake.drop('relp', 'truncated-frame', 1, peer);
  });
}

/** The RELP listener (LOGSTEAD_RELP_PORT). */
export function relpServer(deps: { intake: SyslogIntake; log: FastifyBaseLogger } & RelpOptions, connections: OpenConnections): net.Server {
  return net.createServer((socket) => acceptRelp(socket, deps, connections));
}
