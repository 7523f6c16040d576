import type { Deliveries, DeliveryReader, NewDelivery } from './deliveries.js';
import type { ConfigKysely } from '../repository/open.js';
import type { DeliveryLogEntry } from '../wire/types.js';
import type { SendResult } from './http-send.js';
import { type DeliveryMessage, deliveryTarget } from './messages.js';

export interface OutboxOptions {
  /** First retry delay; doubles on each attempt up to MAX_DELAY_MS. */
  retryBaseMs: number;
  maxAttempts: number;
  now?: () => number;
  /** Hears the outcome of every attempt once it is recorded (the metrics); must not throw. */
  attempted?: (integration: DeliveryMessage['integration'], outcome: 'delivered' | 'failed' | 'retry') => void;
  /** Hears of a failure to read or write the outbox (the database did not answer); must not throw. */
  failed?: (error: unknown) => void;
  /**
   * Whether whoever set a delivery's target may still send it: a removed member's deliveries stop
   * at once, even those queued or retrying, at every node (issue 39). Absent: every setter may.
   */
  setterStanding?: (setBy: string) => Promise<boolean>;
}

/** Who answers for a delivery and what bounds it (deliveries.ts). */
export type DeliveryBounds = Pick<NewDelivery, 'setBy' | 'scopes' | 'held'>;

/** What a delivery whose setter is gone records instead of being sent. */
export const SETTER_GONE_DETAIL = 'held: the member who set this target was removed or can no longer sign in; nothing was sent';

export type { DeliveryLogEntry };

const MAX_DELAY_MS = 10 * 60_000;
const CONCURRENCY = 4;
/**
 * How long a node's claim on a delivery it is sending lasts. The node renews its claims every
 * third of this while the sends go on (an SMTP conversation may take minutes), so only a node that
 * died lets a claim run out, and another node then takes the delivery and sends it.
 */
export const CLAIM_MS = 30_000;
/** Other nodes queue deliveries too: this node looks for due ones at least this often. */
const POLL_MS = 1000;

/**
 * The durable queue of notifications. A message is written here in the same transaction as the
 * alert fire that caused it, then sent in the background with retries and exponential backoff on
 * network errors, 5xx and 429 (after the receiver's Retry-After when it gives one); every attempt is recorded. Sending never blocks ingestion, and
 * pending messages resume after a restart. Any node sends any delivery: each is claimed for a
 * lease before it is sent, so it is sent once, and again only if its node died mid-way.
 */
export class Outbox {
  /** Deliveries being sent here, with the token of this node's claim on each. */
  private readonly inFlight = new Map<number, string>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private kicking: Promise<void> | undefined;
  private kickAgain = false;
  private readonly now: () => number;

  constructor(
    private readonly deliveries: Deliveries,
    private readonly send: (message: DeliveryMessage) => Promise<SendResult>,
    private readonly options: OutboxOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Queues a message, inside `trx` when given (the transaction that decided to send it). */
  async enqueue(account: string, fireId: number | null, message: DeliveryMessage, trx?: ConfigKysely, bounds: DeliveryBounds = {}): Promise<number> {
    const id = await this.deliveries.enqueue({ account, fireId, integration: message.integration, target: deliveryTarget(message), message: JSON.stringify(message), ...bounds }, this.now(), trx);
    // After the transaction commits, in the usual case; a kick before that finds nothing and the poll catches it.
    setImmediate(() => this.kick());
    return id;
  }

  private renewal: NodeJS.Timeout | undefined;

  start(): void {
    this.stopped = false;
    this.renewal = setInterval(() => {
      this.deliveries.extendClaims([...this.inFlight.values()], this.now() + CLAIM_MS).catch(() => {
        // The database did not answer: the claims last until the next renewal does.
      });
    }, CLAIM_MS / 3);
    this.renewal.unref();
    this.kick();
  }

  /** Stops scheduling and waits for the attempts under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.renewal);
    await this.kicking;
    while (this.inFlight.size > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  /** Sends whatever is due now, then sleeps until the next message is due (or the next poll). */
  kick(): void {
    if (this.stopped) return;
    if (this.kicking) {
      this.kickAgain = true;
      return;
    }
    this.kicking = this.claimAndSend()
      .catch((error) => {
        this.options.failed?.(error);
        // The database did not answer: look again at the next poll.
        if (this.stopped) return;
        clearTimeout(this.timer);
        this.timer = setTimeout(() => this.kick(), POLL_MS);
        this.timer.unref();
      })
      .finally(() => {
        this.kicking = undefined;
        if (this.kickAgain) {
          this.kickAgain = false;
          this.kick();
        }
      });
  }

  private async claimAndSend(): Promise<void> {
    clearTimeout(this.timer);
    const now = this.now();
    const room = CONCURRENCY - this.inFlight.size;
    if (room > 0) {
      for (const row of await this.deliveries.claimDue(now, room, CLAIM_MS)) {
        if (this.stopped) break;
        void this.attempt(row.id, row.token, JSON.parse(row.message), row.attempts, row.setBy);
      }
    }
    // Every slot busy: the send that ends first kicks again, so no short timer is needed.
    if (this.stopped || this.inFlight.size >= CONCURRENCY) {
      if (!this.stopped) this.timer = setTimeout(() => this.kick(), POLL_MS);
      this.timer?.unref();
      return;
    }
    const next = await this.deliveries.nextDueAt();
    const wait = next === null ? POLL_MS : Math.min(POLL_MS, Math.max(10, next - now));
    this.timer = setTimeout(() => this.kick(), wait);
    this.timer.unref();
  }

  private async attempt(id: number, token: string, message: DeliveryMessage, attempts: number, setBy: string | null): Promise<void> {
    this.inFlight.set(id, token);
    try {
      let result: SendResult;
      let held = false;
      try {
        held = setBy !== null && this.options.setterStanding !== undefined && !(await this.options.setterStanding(setBy));
        result = held ? { ok: false, retry: false, detail: SETTER_GONE_DETAIL } : await this.send(message);
      } catch (error) {
        result = { ok: false, retry: true, detail: (error as Error).message };
      }
      const now = this.now();
      const tried = attempts + 1;
      const giveUp = !result.ok && (!result.retry || tried >= this.options.maxAttempts);
      // A receiver that says when to come back (429 with Retry-After, as Slack does) is taken at its word.
      const delay = Math.min(MAX_DELAY_MS, result.retryAfterMs ?? this.options.retryBaseMs * 2 ** (tried - 1));
      try {
        const recorded = await this.deliveries.recordAttempt(id, token, {
          at: now,
          outcome: held ? 'held' : result.ok ? 'delivered' : result.retry && !giveUp ? 'will retry' : 'failed',
          detail: result.detail,
          statusCode: result.status ?? null,
          status: result.ok ? 'delivered' : giveUp ? 'failed' : 'pending',
          attempts: tried,
          nextAttemptAt: now + delay,
        });
        // The claim ran out while this send went on and another node took it over.
        if (!recorded) return;
      } catch (error) {
        // Sent, but not recorded: the claim runs out and the delivery is sent again (at least once).
        this.options.failed?.(error);
        return;
      }
      this.options.attempted?.(message.integration, result.ok ? 'delivered' : giveUp ? 'failed' : 'retry');
    } finally {
      this.inFlight.delete(id);
      this.kick();
    }
  }

  /** An organisation's recent deliveries with every attempt, newest first; only one view's when `viewid` is given. */
  log(account: string, limit: number, viewid?: string, reader?: DeliveryReader): Promise<DeliveryLogEntry[]> {
    return this.deliveries.log(account, limit, viewid, reader);
  }
}
