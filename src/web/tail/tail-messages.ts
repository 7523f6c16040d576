import type { LogLine } from '../api-client/client.js';

/** One message of the tail's socket: lines, a report of lines skipped while sampling, or nothing to show. */
export type TailMessage = { kind: 'lines'; lines: LogLine[] } | { kind: 'sampled'; dropped: number } | { kind: 'quiet' };

/** Reads a socket message: `{e: 'meta', p: {sampled, dropped}}` reports sampling; any other carries one line or an array of them. */
export function readTailMessage(data: string): TailMessage {
  const message = JSON.parse(data);
  if (message.e === 'meta') return message.p?.sampled ? { kind: 'sampled', dropped: Number(message.p.dropped ?? 0) } : { kind: 'quiet' };
  return { kind: 'lines', lines: Array.isArray(message.p) ? message.p : [message.p] };
}

/** Lines held back while the reader is scrolled up: the newest `max` of them. */
export const holdBack = (pending: LogLine[], incoming: LogLine[], max: number): LogLine[] => [...pending, ...incoming].slice(-max);
