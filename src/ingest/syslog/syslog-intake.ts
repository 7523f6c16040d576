import type { FastifyBaseLogger } from 'fastify';
import type { Accounts } from '../../accounts/accounts.js';
import { ApiError } from '../../http/errors.js';
import type { IngestAdmission } from '../admission.js';
import { BadInputError, OverloadedError } from '../errors.js';
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

/**
 * What became of one message: stored durably; dropped on purpose (a wrong or missing key, a
 * suspended organisation, input the intake refuses, a full store for UDP), counted, and over RELP
 * acknowledged, as sending it again would not change that; or failed, its write still failing
 * when the intake stopped, so RELP leaves it unacknowledged for the sender to send again.
 */
export type MessageOutcome = 'stored' | 'dropped' | 'failed';

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
  private readonly failureLog = new RateLimitedLog(10_000);
  private readonly wakeOnStop = new Set<() => void>();
  private stopping = false;

  constructor(private readonly deps: SyslogIntakeDeps) {}

  /** Stops retrying writes that fail: a message still failing is 'failed' (over RELP, left unacknowledged). */
  stop(): void {
    this.stopping = true;
    for (const wake of [...this.wakeOnStop]) wake();
  }

  /**
   * Stores a batch of messages (each a frame's bytes as UTF-8; invalid bytes become U+FFFD) and
   * resolves, once every stored message is durable, with each message's outcome in order. A write
   * that fails for any reason but bad input is tried again until it succeeds or the intake stops.
   * `waitForRoom` false (UDP, where nobody can be held back) drops a batch that finds the store
   * full instead of waiting.
   */
  async store(protocol: IngestProtocol, messages: string[], peer: Peer, options: { waitForRoom: boolean }): Promise<MessageOutcome[]> {
    const receivedAt = Date.now();
    const outcomes: MessageOutcome[] = new Array(messages.length).fill('dropped');
    const byKey = new Map<string | undefined, { index: number; line: SyslogLine }[]>();
    let sentBytes = 0;
    messages.forEach((message, index) => {
      sentBytes += message.length;
      const line = syslogLine(parseSyslog(message, receivedAt));
      const group = byKey.get(line.key);
      if (group) group.push({ index, line });
      else byKey.set(line.key, [{ index, line }]);
    });
    const requests: { account: string; tags: string[]; indexes: number[]; lines: Record<string, unknown>[] }[] = [];
    for (const [key, lines] of byKey) {
      let account;
      try {
        account = await this.accountOf(protocol, key, lines.length, peer);
      } catch (error) {
        this.failed(protocol, lines.length, error, peer);
        for (const { index } of lines) outcomes[index] = 'failed';
        continue;
      }
      if (account === null) continue;
      const byTags = new Map<string, { account: string; tags: string[]; indexes: number[]; lines: Record<string, unknown>[] }>();
      for (const { index, line: { tags, line } } of lines) {
        const tagsKey = tags.join(',');
        let request = byTags.get(tagsKey);
        if (!request) byTags.set(tagsKey, (request = { account, tags, indexes: [], lines: [] }));
        request.indexes.push(index);
        request.lines.push(line);
      }
      requests.push(...byTags.values());
    }
    const average = Math.ceil(sentBytes / Math.max(messages.length, 1));
    for (const request of requests) {
      const source = { hostname: peer.address, ip: peer.address, mac: '', tags: request.tags, nowMs: null };
      const intakeRequest = { protocol, account: request.account, source, rawLines: request.lines, receivedAt, sentBytes: average * request.lines.length };
      const outcome = await this.writeDurably(intakeRequest, options, peer);
      for (const index of request.indexes) outcomes[index] = outcome;
    }
    return outcomes;
  }

  /** The organisation of a message's key; null (and the messages counted as dropped) when there is none. */
  private async accountOf(protocol: IngestProtocol, key: string | undefined, messages: number, peer: Peer): Promise<string | null> {
    const presented = key ?? this.deps.fallbackKey;
    // The configuration database may be away a moment: asked again, as a write is.
    const account = presented === undefined ? null : await this.retrying(() => this.deps.accounts.accountForKey(presented, 'ingestion'), 'syslog key lookup');
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

  /** Messages whose write still failed when the intake stopped: counted as not stored. */
  private failed(protocol: IngestProtocol, messages: number, error: unknown, peer?: Peer): void {
    this.drop(protocol, 'store-failed', messages, peer);
    this.failureLog.record(`${protocol}:failed`, messages, (count) =>
      this.deps.log.warn({ err: error, protocol, messages: count }, 'syslog messages not stored: their write still failed as the listener stopped'),
    );
  }

  /**
   * One request through admission, the intake and the durable write. Any failure but a client
   * error (the store, the configuration database) is retried with backoff until the write succeeds
   * or the intake stops: 'failed' then. 'dropped' when the intake refuses the input, the
   * organisation is suspended, or the store is full for a sender that cannot wait (UDP).
   */
  private async writeDurably(request: Parameters<Intake['prepare']>[0], options: { waitForRoom: boolean }, peer: Peer): Promise<MessageOutcome> {
    const { admission, intake, log } = this.deps;
    let delay = 100;
    for (;;) {
      let ticket;
      try {
        ticket = await admission.admit(request.sentBytes ?? 0);
      } catch (error) {
        if (!(error instanceof OverloadedError)) throw error;
        if (!options.waitForRoom) {
          this.drop(request.protocol, 'overload', request.rawLines.length, peer);
          return 'dropped';
        }
        if (this.stopping) {
          this.failed(request.protocol, request.rawLines.length, error, peer);
          return 'failed';
        }
        // Still full (admission already waited LOGSTEAD_INGEST_WAIT_MS, perhaps 0): the sender
        // waits, its connection unread, and the write asks again shortly.
        await this.pause(OVERLOAD_RETRY_MS);
        continue;
      }
      try {
        const prepared = await intake.prepare(request);
        await intake.write(prepared, log, () => ticket.release());
        return 'stored';
      } catch (error) {
        if (isClientError(error)) {
          // Refused as sent: another try would be refused too, so the messages are dropped (and
          // acknowledged over RELP, or the sender would offer them for ever).
          if (error instanceof ApiError && error.statusCode === 403) this.drop(request.protocol, 'suspended', request.rawLines.length, peer);
          else {
            this.drop(request.protocol, 'store-failed', request.rawLines.length, peer);
            log.error({ err: error }, 'syslog messages refused by the intake');
          }
          return 'dropped';
        }
        if (this.stopping) {
          this.failed(request.protocol, request.rawLines.length, error, peer);
          return 'failed';
        }
        this.failureLog.record(`${request.protocol}:retry`, 1, (count) =>
          log.warn({ err: error, protocol: request.protocol, failures: count }, 'syslog messages could not be stored; retrying'),
        );
        await this.pause(delay);
        delay = Math.min(delay * 2, MAX_RETRY_MS);
      } finally {
        ticket.release();
      }
    }
  }

  /**
   * `attempt` until it succeeds, waiting longer after each failure (at most MAX_RETRY_MS). A client
   * error is thrown at once, as it would fail again; any error once the intake is stopping.
   */
  private async retrying<T>(attempt: () => Promise<T>, what: string): Promise<T> {
    let delay = 100;
    for (;;) {
      try {
        return await attempt();
      } catch (error) {
        if (isClientError(error) || this.stopping) throw error;
        this.failureLog.record(what, 1, (count) => this.deps.log.warn({ err: error, failures: count }, `${what} failed; retrying`));
        await this.pause(delay);
        delay = Math.min(delay * 2, MAX_RETRY_MS);
      }
    }
  }

  /** Waits `ms`, or less when the intake stops meanwhile: a stopping listener does not wait out a backoff. */
  private pause(ms: number): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakeOnStop.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.wakeOnStop.add(wake);
    });
  }
}

/** An error that says the input is bad (a 4xx): retrying the same messages cannot help. */
function isClientError(error: unknown): boolean {
  return error instanceof BadInputError || (error instanceof ApiError && error.statusCode >= 400 && error.statusCode < 500);
}

/** Logs a kind of event at most once per interval, with how many happened since the last line. */
export class RateLimitedLog {
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
