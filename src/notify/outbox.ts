import type { ConfigDb } from '../config/database.js';
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
}

export type { DeliveryLogEntry };

const MAX_DELAY_MS = 10 * 60_000;
const CONCURRENCY = 4;

/**
 * The durable queue of notifications. A message is written here in the same transaction as the
 * alert fire that caused it, then sent in the background with retries and exponential backoff on
 * network errors, 5xx and 429; every attempt is recorded. Sending never blocks ingestion, and
 * pending messages resume after a restart.
 */
export class Outbox {
  private readonly inFlight = new Set<number>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly now: () => number;

  constructor(
    private readonly db: ConfigDb,
    private readonly send: (message: DeliveryMessage) => Promise<SendResult>,
    private readonly options: OutboxOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Queues a message; call inside the transaction that decided to send it. */
  enqueue(account: string, fireId: number | null, message: DeliveryMessage): number {
    const now = this.now();
    const result = this.db
      .prepare(
        `INSERT INTO deliveries (account, fire_id, integration, target, message, status, attempts, next_attempt_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?)`,
      )
      .run(account, fireId, message.integration, deliveryTarget(message), JSON.stringify(message), now, now, now);
    setImmediate(() => this.kick());
    return Number(result.lastInsertRowid);
  }

  start(): void {
    this.stopped = false;
    this.kick();
  }

  /** Stops scheduling and waits for the attempts under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    while (this.inFlight.size > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  /** Sends whatever is due now, then sleeps until the next message is due. */
  kick(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    const now = this.now();
    const due = this.db
      .prepare<[number, number], { id: number; message: string; attempts: number }>(
        `SELECT id, message, attempts FROM deliveries WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?`,
      )
      .all(now, CONCURRENCY * 4)
      .filter((row) => !this.inFlight.has(row.id))
      .slice(0, CONCURRENCY - this.inFlight.size);
    for (const row of due) void this.attempt(row.id, JSON.parse(row.message), row.attempts);
    const next = this.db.prepare(`SELECT min(next_attempt_at) AS at FROM deliveries WHERE status = 'pending'`).get() as { at: number | null };
    if (next.at !== null && this.inFlight.size < CONCURRENCY) {
      this.timer = setTimeout(() => this.kick(), Math.max(10, next.at - now));
      this.timer.unref();
    }
  }

  private async attempt(id: number, message: DeliveryMessage, attempts: number): Promise<void> {
    this.inFlight.add(id);
    let result: SendResult;
    try {
      result = await this.send(message);
    } catch (error) {
      result = { ok: false, retry: true, detail: (error as Error).message };
    }
    const now = this.now();
    const tried = attempts + 1;
    const giveUp = !result.ok && (!result.retry || tried >= this.options.maxAttempts);
    const status = result.ok ? 'delivered' : giveUp ? 'failed' : 'pending';
    const delay = Math.min(MAX_DELAY_MS, this.options.retryBaseMs * 2 ** (tried - 1));
    this.db.transaction(() => {
      this.db
        .prepare(`INSERT INTO delivery_attempts (delivery_id, at, outcome, detail, status_code) VALUES (?, ?, ?, ?, ?)`)
        .run(id, now, result.ok ? 'delivered' : result.retry && !giveUp ? 'will retry' : 'failed', result.detail, result.status ?? null);
      this.db
        .prepare(`UPDATE deliveries SET status = ?, attempts = ?, next_attempt_at = ?, updated_at = ? WHERE id = ?`)
        .run(status, tried, now + delay, now, id);
    })();
    this.options.attempted?.(message.integration, result.ok ? 'delivered' : giveUp ? 'failed' : 'retry');
    this.inFlight.delete(id);
    this.kick();
  }

  /** An organisation's recent deliveries with every attempt, newest first; only one view's when `viewid` is given. */
  log(account: string, limit: number, viewid?: string): DeliveryLogEntry[] {
    const rows = this.db
      .prepare<unknown[], { id: number; integration: string; target: string; status: DeliveryLogEntry['status']; created_at: number; updated_at: number; viewid: string | null; alertid: string | null; kind: string | null; window_start: number | null; matches: number | null }>(
        `SELECT d.id, d.integration, d.target, d.status, d.created_at, d.updated_at, f.viewid, f.alertid, f.kind, f.window_start, f.matches
           FROM deliveries d LEFT JOIN alert_fires f ON f.id = d.fire_id
          WHERE d.account = ? ${viewid === undefined ? '' : 'AND f.viewid = ?'} ORDER BY d.id DESC LIMIT ?`,
      )
      .all(...(viewid === undefined ? [account, limit] : [account, viewid, limit]));
    const attempts = this.db.prepare<[number], { at: number; outcome: string; detail: string; status: number | null }>(
      `SELECT at, outcome, detail, status_code AS status FROM delivery_attempts WHERE delivery_id = ? ORDER BY id`,
    );
    return rows.map((row) => {
      const tried = attempts.all(row.id);
      return {
        id: row.id,
        integration: row.integration,
        target: row.target,
        status: row.status,
        viewid: row.viewid,
        alertid: row.alertid,
        kind: row.kind,
        windowStart: row.window_start,
        matches: row.matches,
        created: row.created_at,
        updated: row.updated_at,
        retries: Math.max(0, tried.length - 1),
        attempts: tried,
      };
    });
  }
}
