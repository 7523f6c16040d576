import type { FastifyBaseLogger } from 'fastify';
import type { Accounts } from '../../accounts/accounts.js';
import { ApiError } from '../../http/errors.js';
import type { IngestAdmission } from '../admission.js';
import { BadInputError, OverloadedError } from '../../lib/ingest-errors.js';
import type { Intake, IngestProtocol, IntakeRequest, PreparedRequest } from '../intake.js';
import { isUnavailable } from '../unavailable.js';
import { parseSyslog } from './message.js';
import { type SyslogLine, syslogLine } from './to-line.js';

/**
 * Why a syslog message was not stored: counted in logstead_syslog_dropped_messages_total.
 * `store-failed`: refused by the intake (a 4xx), or the store or configuration database still
 * unavailable after every retry or when the listener stopped; `internal-error`: a failure that no
 * retry would mend (a bug), logged as an error.
 */
export type DropReason = 'no-key' | 'wrong-key' | 'suspended' | 'overload' | 'truncated-frame' | 'bad-frame' | 'tls-handshake' | 'store-failed' | 'internal-error';

export interface DropCounter {
  (protocol: IngestProtocol, reason: DropReason, messages: number): void;
}

/** How a write that found the store or the configuration database unavailable is tried again. */
export interface RetryPolicy {
  /** Tries in all, the first included, before the messages are given up on. */
  attempts: number;
  /** The wait after the first failure; doubled after each next one, up to maxDelayMs. */
  firstDelayMs: number;
  maxDelayMs: number;
}

/** About 26 s of tries: long enough for a store or database restart, short enough that a sender hears. */
export const DEFAULT_RETRY: RetryPolicy = { attempts: 10, firstDelayMs: 100, maxDelayMs: 5_000 };

export interface SyslogIntakeDeps {
  accounts: Accounts;
  intake: Intake;
  admission: IngestAdmission;
  /** LOGSTEAD_SYSLOG_KEY: the ingestion key a message without a logdna@48950 key is stored under. */
  fallbackKey: string | undefined;
  dropped: DropCounter;
  log: FastifyBaseLogger;
  /** DEFAULT_RETRY unless given (tests shorten it). */
  retry?: Partial<RetryPolicy>;
}

/** Where a batch of messages came from: the peer's address stands for a message that names no host. */
export interface Peer {
  address: string;
}

/**
 * What became of one message:
 * - `stored`: durably written;
 * - `dropped` on purpose (a wrong or missing key, a suspended organisation, input the intake
 *   refuses, a full store for UDP): counted, and over RELP acknowledged, as sending it again
 *   would not change that;
 * - `failed`: not stored, counted, and over RELP answered with an error: the store or the
 *   configuration database stayed unavailable through every retry, or the write failed in a way
 *   no retry mends;
 * - `interrupted`: its write was still being retried when the intake stopped, so over RELP it is
 *   left unacknowledged for the sender to send again once Logstead is back.
 */
export type MessageOutcome = 'stored' | 'dropped' | 'failed' | 'interrupted';

/** How long a write that found the store's queue full waits before it asks for room again. */
const OVERLOAD_RETRY_MS = 50;

/** A failure that ended a write's tries: what to count, say and answer. */
class GaveUp extends Error {
  constructor(
    readonly outcome: 'failed' | 'interrupted',
    readonly reason: DropReason,
    readonly error: unknown,
  ) {
    super('gave up');
  }
}

/**
 * Syslog messages, a batch at a time, through the intake: each message's key picks its
 * organisation (a wrong key drops the message, and only a message with no key falls back to
 * LOGSTEAD_SYSLOG_KEY), the messages of one organisation and tags make one intake request, and
 * the batch resolves only once all of them are durably written. A full store is waited out, not
 * dropped: the listener stops reading meanwhile, so TCP (and RELP's window) hold the sender back.
 * A store or configuration database that is unavailable is tried again with backoff, a bounded
 * number of times; any other failure is not retried.
 */
export class SyslogIntake {
  private readonly dropLog = new RateLimitedLog(10_000);
  private readonly failureLog = new RateLimitedLog(10_000);
  private readonly wakeOnStop = new Set<() => void>();
  private readonly retry: RetryPolicy;
  private stopping = false;

  constructor(private readonly deps: SyslogIntakeDeps) {
    this.retry = { ...DEFAULT_RETRY, ...deps.retry };
  }

  /** Stops retrying: a message whose write is still being retried is 'interrupted' (over RELP, left unacknowledged). */
  stop(): void {
    this.stopping = true;
    for (const wake of [...this.wakeOnStop]) wake();
  }

  /**
   * Stores a batch of messages (each a frame's bytes as UTF-8; invalid bytes become U+FFFD) and
   * resolves, once every stored message is durable, with each message's outcome in order.
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
        const outcome = this.gaveUp(protocol, lines.length, error, peer, 'key lookup');
        for (const { index } of lines) outcomes[index] = outcome;
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
      let outcome: MessageOutcome;
      try {
        outcome = await this.writeDurably(intakeRequest, options, peer);
      } catch (error) {
        outcome = this.gaveUp(protocol, request.lines.length, error, peer, 'write');
      }
      for (const index of request.indexes) outcomes[index] = outcome;
    }
    return outcomes;
  }

  /**
   * The organisation of a message's key; null (and the messages counted as dropped) when there is
   * none. Throws GaveUp when the configuration database could not answer (after its retries) or
   * the lookup failed otherwise.
   */
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
      if (!(error instanceof ApiError && error.statusCode === 403)) throw new GaveUp('failed', 'internal-error', error);
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
   * Messages given up on (GaveUp, or an error thrown past it): counted, logged at most once per
   * interval with what the step was and why, and their outcome.
   */
  private gaveUp(protocol: IngestProtocol, messages: number, thrown: unknown, peer: Peer, step: 'key lookup' | 'write'): 'failed' | 'interrupted' {
    const given = thrown instanceof GaveUp ? thrown : new GaveUp('failed', 'internal-error', thrown);
    this.deps.dropped(protocol, given.reason, messages);
    const { log } = this.deps;
    this.failureLog.record(`${protocol}:${step}:${given.outcome}:${given.reason}`, messages, (count) => {
      const fields = { err: given.error, protocol, messages: count, peer: peer.address };
      if (given.reason === 'internal-error') log.error(fields, `syslog messages not stored: the ${step} failed with an unexpected error (not retried)`);
      else if (given.outcome === 'interrupted') log.warn(fields, `syslog messages not stored: the ${step} was still being retried as the listener stopped`);
      else log.warn(fields, `syslog messages not stored: the ${step} found the ${step === 'write' ? 'log store or configuration database' : 'configuration database'} unavailable through ${this.retry.attempts} tries`);
    });
    return given.outcome;
  }

  /**
   * One request through admission, the intake and the durable write. The request is prepared
   * (normalised, given its line ids and batch id) once; only the write of that prepared request is
   * tried again, so a retry stores the same lines under the same ids, never a second batch. A store
   * or configuration database that is unavailable is retried with backoff, RetryPolicy.attempts
   * tries in all; anything else throws GaveUp at once. 'dropped' when the intake refuses the input,
   * the organisation is suspended, or the store is full for a sender that cannot wait (UDP).
   */
  private async writeDurably(request: IntakeRequest, options: { waitForRoom: boolean }, peer: Peer): Promise<MessageOutcome> {
    const { admission, intake, log } = this.deps;
    let prepared: PreparedRequest | undefined;
    for (let attempt = 1; ; ) {
      let ticket;
      try {
        ticket = await admission.admit(request.sentBytes ?? 0);
      } catch (error) {
        if (!(error instanceof OverloadedError)) throw error;
        if (!options.waitForRoom) {
          this.drop(request.protocol, 'overload', request.rawLines.length, peer);
          return 'dropped';
        }
        if (this.stopping) throw new GaveUp('interrupted', 'store-failed', error);
        // Still full (admission already waited LOGSTEAD_INGEST_WAIT_MS, perhaps 0): the sender
        // waits, its connection unread, and the write asks again shortly. Not a failed try: this
        // is how a full store holds a TCP sender back.
        await this.pause(OVERLOAD_RETRY_MS);
        continue;
      }
      try {
        prepared ??= await intake.prepare(request);
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
        await this.beforeNextTry(error, attempt++, 'syslog write');
      } finally {
        ticket.release();
      }
    }
  }

  /** `attempt` tried until it succeeds, while it fails for want of the configuration database. */
  private async retrying<T>(attempt: () => Promise<T>, what: string): Promise<T> {
    for (let tries = 1; ; tries++) {
      try {
        return await attempt();
      } catch (error) {
        await this.beforeNextTry(error, tries, what);
      }
    }
  }

  /**
   * After try number `tries` failed with `error`: throws GaveUp unless another try may help (the
   * error says something is unavailable, tries are left, the intake is not stopping); otherwise
   * waits out the backoff.
   */
  private async beforeNextTry(error: unknown, tries: number, what: string): Promise<void> {
    if (!isUnavailable(error)) throw new GaveUp('failed', 'internal-error', error);
    if (this.stopping) throw new GaveUp('interrupted', 'store-failed', error);
    if (tries >= this.retry.attempts) throw new GaveUp('failed', 'store-failed', error);
    this.failureLog.record(`${what}:retry`, 1, (count) => this.deps.log.warn({ err: error, failures: count }, `${what} failed (unavailable); retrying`));
    await this.pause(Math.min(this.retry.firstDelayMs * 2 ** (tries - 1), this.retry.maxDelayMs));
    if (this.stopping) throw new GaveUp('interrupted', 'store-failed', error);
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

/** An error that says the input is bad (a 4xx other than 429): retrying the same messages cannot help. */
function isClientError(error: unknown): boolean {
  return error instanceof BadInputError || (error instanceof ApiError && error.statusCode >= 400 && error.statusCode < 500 && error.statusCode !== 429);
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
