import type { FastifyBaseLogger } from 'fastify';
import type { Accounts } from '../../accounts/accounts.js';
import { ApiError } from '../../http/errors.js';
import type { IngestAdmission } from '../admission.js';
import { OverloadedError } from '../errors.js';
import type { Intake, IngestProtocol } from '../intake.js';
import { parseSyslog } from './message.js';
import { type SyslogLine, syslogLine } from './to-line.js';

/** Why a syslog message was not stored: counted in logstead_syslog_dropped_messages_total. */
export type DropReason = 'no-key' | 'wrong-key' | 'suspended' | 'overload' | 'truncated-frame' | 'bad-frame' | 'tls-handshake' | 'store-failed';

export interface DropCounter {
  (protocol: IngestProtocol, reason: DropReason, messages: number): void;
}

export interface SyslogIntakeDeps {
  accounts: Accounts;
  intake: Intake;
  admission: IngestAdmission;
  /** LOGSTEAD_SYSLOG_KEY: the ingestion key a message without a logdna@48950 key is stored under. */
  fallbackKey: string | undefined;
  dropped: DropCounter;
  log: FastifyBaseLogger;
}

/** Where a batch of messages came from: the peer's address stands for a message that names no host. */
export interface Peer {
  address: string;
}

/** How long a write that found the store's queue full waits before it asks for room again. */
const OVERLOAD_RETRY_MS = 50;

/** How long a write that failed waits before it is tried again, at most. */
const MAX_RETRY_MS = 5_000;

/**
 * Syslog messages, a batch at a time, through the intake: each message's key picks its
 * organisation (a wrong key drops the message, and only a message with no key falls back to
 * LOGSTEAD_SYSLOG_KEY), the messages of one organisation and tags make one intake request, and
 * the batch resolves only once all of them are durably written. A full store is waited out, not
 * dropped: the listener stops reading meanwhile, so TCP (and RELP's window) hold the sender back.
 */
export class SyslogIntake {
  private readonly dropLog = new RateLimitedLog(10_000);
  private stopping = false;

  constructor(private readonly deps: SyslogIntakeDeps) {}

  /** Stops retrying writes that fail: a batch still failing is dropped (over RELP, left unacknowledged). */
  stop(): void {
    this.stopping = true;
  }

  /**
   * Stores a batch of messages (each a frame's bytes as UTF-8; invalid bytes become U+FFFD); resolves when every stored message is durable, and returns how many
   * were stored. `waitForRoom` false (UDP, where nobody can be held back) drops a batch that finds
   * the store full instead of waiting. Rejects only when stopping with writes still failing.
   */
  async store(protocol: IngestProtocol, messages: string[], peer: Peer, options: { waitForRoom: boolean }): Promise<number> {
    const receivedAt = Date.now();
    const byKey = new Map<string | undefined, SyslogLine[]>();
    let sentBytes = 0;
    for (const message of messages) {
      sentBytes += message.length;
      const line = syslogLine(parseSyslog(message, receivedAt));
      const group = byKey.get(line.key);
      if (group) group.push(line);
      else byKey.set(line.key, [line]);
    }
    const requests: { account: string; tags: string[]; lines: Record<string, unknown>[] }[] = [];
    for (const [key, lines] of byKey) {
      const account = await this.accountOf(protocol, key, lines.length, peer);
      if (account === null) continue;
      const byTags = new Map<string, { account: string; tags: string[]; lines: Record<string, unknown>[] }>();
      for (const { tags, line } of lines) {
        const tagsKey = tags.join(',');
        let request = byTags.get(tagsKey);
        if (!request) byTags.set(tagsKey, (request = { account, tags, lines: [] }));
        request.lines.push(line);
      }
      requests.push(...byTags.values());
    }
    if (requests.length === 0) return 0;
    const average = Math.ceil(sentBytes / messages.length);
    let stored = 0;
    for (const request of requests) {
      const source = { hostname: peer.address, ip: peer.address, mac: '', tags: request.tags, nowMs: null };
      const intakeRequest = { protocol, account: request.account, source, rawLines: request.lines, receivedAt, sentBytes: average * request.lines.length };
      if (await this.writeDurably(intakeRequest, options)) stored += request.lines.length;
    }
    return stored;
  }

  /** The organisation of a message's key; null (and the messages counted as dropped) when there is none. */
  private async accountOf(protocol: IngestProtocol, key: string | undefined, messages: number, peer: Peer): Promise<string | null> {
    const presented = key ?? this.deps.fallbackKey;
    const account = presented === undefined ? null : await this.deps.accounts.accountForKey(presented, 'ingestion');
    if (account === null) {
      this.drop(protocol, key === undefined ? 'no-key' : 'wrong-key', messages, peer);
      return null;
    }
    try {
      this.deps.intake.admit(account);
    } catch (error) {
      // Its organisation's ingestion is suspended: HTTP senders get 403; syslog has no answer to give.
      if (!(error instanceof ApiError && error.statusCode === 403)) throw error;
      this.drop(protocol, 'suspended', messages, peer);
      return null;
    }
    return account;
  }

  drop(protocol: IngestProtocol, reason: DropReason, messages: number, peer?: Peer): void {
    this.deps.dropped(protocol, reason, messages);
    this.dropLog.record(`${protocol}:${reason}`, messages, (count) =>
      this.deps.log.warn({ protocol, reason, messages: count, peer: peer?.address }, `syslog messages dropped (${reason})`),
    );
  }

  /**
   * One request through admission, the intake and the durable write, retried with backoff while
   * the store fails or is full; true once written. False when it was dropped: the store full for
   * a sender that cannot wait (UDP), or still failing when the listener stops.
   */
  private async writeDurably(request: Parameters<Intake['prepare']>[0], options: { waitForRoom: boolean }): Promise<boolean> {
    const { admission, intake, log } = this.deps;
    let delay = 100;
    for (;;) {
      let ticket;
      try {
        ticket = await admission.admit(request.sentBytes ?? 0);
      } catch (error) {
        if (!(error instanceof OverloadedError)) throw error;
        if (!options.waitForRoom) {
          this.drop(request.protocol, 'overload', request.rawLines.length);
          return false;
        }
        if (this.stopping) throw error;
        // Still full (admission already waited LOGSTEAD_INGEST_WAIT_MS, perhaps 0): the sender
        // waits, its connection unread, and the write asks again shortly.
        await sleep(OVERLOAD_RETRY_MS);
        continue;
      }
      try {
        const prepared = await intake.prepare(request);
        await intake.write(prepared, log, () => ticket.release());
        return true;
      } catch (error) {
        // Only the store's own failures (503) are worth another try: a request the intake refuses
        // (it cannot be, as messages are lines by construction) would fail again.
        const retryable = error instanceof ApiError && error.statusCode === 503;
        if (!retryable || this.stopping || !options.waitForRoom) {
          this.drop(request.protocol, 'store-failed', request.rawLines.length);
          if (!retryable) log.error({ err: error }, 'syslog messages could not be stored');
          if (this.stopping && retryable && options.waitForRoom) throw error;
          return false;
        }
        await sleep(delay);
        delay = Math.min(delay * 2, MAX_RETRY_MS);
      } finally {
        ticket.release();
      }
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Logs a kind of event at most once per interval, with how many happened since the last line. */
class RateLimitedLog {
  private readonly last = new Map<string, { at: number; unlogged: number }>();

  constructor(private readonly intervalMs: number) {}

  record(kind: string, count: number, write: (count: number) => void): void {
    const now = Date.now();
    const entry = this.last.get(kind);
    if (entry && now - entry.at < this.intervalMs) {
      entry.unlogged += count;
      return;
    }
    write(count + (entry?.unlogged ?? 0));
    this.last.set(kind, { at: now, unlogged: 0 });
  }
}
