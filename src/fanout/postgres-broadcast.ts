import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Broadcast } from './broadcast.js';

/**
 * PostgreSQL's NOTIFY allows payloads under 8,000 bytes: a message is sent in parts of at most
 * this many characters (four bytes each at most in UTF-8), all in one statement, so they arrive in
 * order and together.
 */
const PART_CHARS = 1800;
/** Parts of a message still missing after this long are given up (their sender died mid-way). */
const REASSEMBLY_MS = 10_000;
const RECONNECT_MS = 1000;
/** The most parts one message may have (about 1.8 MB): a payload claiming more is not ours. */
const MAX_PARTS = 1000;
/** Publishes waiting for the pool: past this, new ones are dropped (live tail is best effort). */
const MAX_PENDING_PUBLISHES = 64;

/**
 * The broadcast over PostgreSQL's LISTEN/NOTIFY, on the server the nodes already share for their
 * configuration: no broker to run. One connection listens (and comes back after a drop); publishing
 * goes through a small pool. Each part carries `node|message|index|count|`, so a node skips its
 * own messages and puts others' back together.
 */
export class PostgresBroadcast implements Broadcast {
  readonly node = randomUUID();
  private readonly pool: pg.Pool;
  private listener: pg.Client | undefined;
  private readonly handlers = new Map<string, Array<(message: string) => void>>();
  private readonly partial = new Map<string, { parts: string[]; got: number; started: number }>();
  private closed = false;
  private reconnect: NodeJS.Timeout | undefined;
  private pending = 0;

  private constructor(
    private readonly url: string,
    private readonly onError: (error: unknown) => void,
  ) {
    this.pool = new pg.Pool({ connectionString: url, max: 2 });
    this.pool.on('error', () => {});
  }

  static async open(url: string, onError: (error: unknown) => void): Promise<PostgresBroadcast> {
    const broadcast = new PostgresBroadcast(url, onError);
    await broadcast.listen();
    return broadcast;
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    const retry = (error: unknown) => {
      if (this.closed || this.listener !== client) return;
      this.onError(error);
      this.listener = undefined;
      client.end().catch(() => {});
      this.reconnect = setTimeout(() => this.listen().catch(this.onError), RECONNECT_MS);
      this.reconnect.unref();
    };
    client.on('error', retry);
    client.on('end', () => retry(new Error('the broadcast connection to PostgreSQL ended')));
    client.on('notification', (notification) => this.receive(notification.channel, notification.payload ?? ''));
    this.listener = client;
    await client.connect();
    for (const channel of this.handlers.keys()) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
  }

  subscribe(channel: string, handler: (message: string) => void): void {
    const list = this.handlers.get(channel);
    if (list) {
      list.push(handler);
      return;
    }
    this.handlers.set(channel, [handler]);
    void this.listener?.query(`LISTEN ${pg.escapeIdentifier(channel)}`).catch(() => {});
  }

  /** Resolves false when the message was dropped because too many wait already. */
  async publish(channel: string, message: string): Promise<boolean> {
    if (this.pending >= MAX_PENDING_PUBLISHES) return false;
    const id = randomUUID();
    const pieces = split(message);
    const parts = pieces.map((piece, index) => `${this.node}|${id}|${index}|${pieces.length}|${piece}`);
    this.pending++;
    try {
      await this.pool.query('SELECT pg_notify($1, part) FROM unnest($2::text[]) WITH ORDINALITY AS p(part, n) ORDER BY n', [channel, parts]);
    } finally {
      this.pending--;
    }
    return true;
  }

  private receive(channel: string, payload: string): void {
    const fields = /^([^|]*)\|([^|]*)\|(\d+)\|(\d+)\|/.exec(payload);
    if (!fields || fields[1] === this.node) return;
    const [header, , id, index, count] = fields;
    if (Number(count) < 1 || Number(count) > MAX_PARTS || Number(index) >= Number(count)) return;
    const body = payload.slice(header.length);
    let message: string | undefined;
    if (count === '1') {
      message = body;
    } else {
      const now = Date.now();
      for (const [key, entry] of this.partial) if (now - entry.started > REASSEMBLY_MS) this.partial.delete(key);
      const entry = this.partial.get(id) ?? { parts: new Array<string>(Number(count)), got: 0, started: now };
      this.partial.set(id, entry);
      if (entry.parts[Number(index)] === undefined) entry.got++;
      entry.parts[Number(index)] = body;
      if (entry.got === entry.parts.length) {
        this.partial.delete(id);
        message = entry.parts.join('');
      }
    }
    if (message === undefined) return;
    for (const handler of this.handlers.get(channel) ?? []) {
      // A handler's failure must not escape into the connection's data event, which would end the process.
      try {
        handler(message);
      } catch (error) {
        this.onError(error);
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnect);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => {});
    await this.pool.end();
  }
}

/** A message in parts of at most PART_CHARS, never splitting a character's surrogate pair. */
function split(message: string): string[] {
  const parts: string[] = [];
  for (let start = 0; start < message.length || parts.length === 0; ) {
    let end = Math.min(message.length, start + PART_CHARS);
    const last = message.charCodeAt(end - 1);
    if (end < message.length && last >= 0xd800 && last <= 0xdbff) end--;
    parts.push(message.slice(start, end));
    start = end;
  }
  return parts;
}
