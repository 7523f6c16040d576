import dgram from 'node:dgram';
import net from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { MAX_FRAME_BYTES } from './stream-listener.js';
import type { SyslogIntake } from './syslog-intake.js';
import { WritePipeline } from './write-pipeline.js';

/** Datagrams held while a batch is written; past this they are dropped and counted (UDP cannot be held back). */
const MAX_HELD_BYTES = 16 * 1024 * 1024;
const MAX_BATCH_MESSAGES = 20_000;

export interface UdpListener {
  port: number;
  close(): Promise<void>;
}

/**
 * Syslog over UDP (RFC 5426): one message a datagram. Datagrams gather while a batch is written;
 * when the store cannot keep up they are dropped and counted, as UDP offers no other way.
 */
export async function listenSyslogUdp(deps: { intake: SyslogIntake; log: FastifyBaseLogger; host: string; port: number }): Promise<UdpListener> {
  const socket = dgram.createSocket({ type: net.isIPv6(deps.host) ? 'udp6' : 'udp4', recvBufferSize: 8 * 1024 * 1024 });
  // Each datagram's sender stands for its host when the message names none.
  const pipeline = new WritePipeline<{ text: string; address: string }>({
    write: async (datagrams) => {
      const byPeer = new Map<string, string[]>();
      for (const { text, address } of datagrams) {
        const messages = byPeer.get(address);
        if (messages) messages.push(text);
        else byPeer.set(address, [text]);
      }
      for (const [address, messages] of byPeer) await deps.intake.store('syslog-udp', messages, { address }, { waitForRoom: false });
    },
    sizeOf: (datagram) => datagram.text.length,
    maxBatchItems: MAX_BATCH_MESSAGES,
    maxHeldBytes: MAX_HELD_BYTES,
    onError: (error) => deps.log.warn({ err: error }, 'syslog UDP messages lost'),
  });
  socket.on('message', (datagram, remote) => {
    if (pipeline.isFull) {
      deps.intake.drop('syslog-udp', 'overload', 1, { address: remote.address });
      return;
    }
    const bytes = datagram.length > MAX_FRAME_BYTES ? datagram.subarray(0, MAX_FRAME_BYTES) : datagram;
    pipeline.push([{ text: bytes.toString('utf8'), address: remote.address }]);
  });
  socket.on('error', (error) => deps.log.warn({ err: error }, 'syslog UDP socket error'));
  const port = await new Promise<number>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind({ address: deps.host, port: deps.port }, () => {
      socket.off('error', reject);
      resolve(socket.address().port);
    });
  });
  return {
    port,
    close: async () => {
      await new Promise<void>((resolve) => socket.close(() => resolve()));
      await pipeline.drained();
    },
  };
}
