import type { InsertPayload } from '../store/executor.js';

export interface BatcherOptions {
  /** A single write carries at most this many lines (a request is never split). */
  maxBatchLines: number;
  /**
   * How long the oldest waiting request may wait for others to join its write (the group commit's
   * latency budget, LOGSTEAD_GROUP_COMMIT_MS); 0 writes whatever is queued as soon as it can.
   */
  gatherMs: number;
  /**
   * Under a light load gathering stops once this many lines wait (LOGSTEAD_GROUP_COMMIT_LINES): an
   * insert this large costs the engine about half of what one of 4,000 lines does a line. Under a
   * fleet's load the target grows with the rate lines arrive at, up to maxBatchLines (loadTarget).
   */
  gatherLines: number;
  /** Whether requests are being read and prepared now, so that their lines are about to be queued. */
  arriving?: () => boolean;
  /** Hears when a write has finished and the queue is shorter (admission lets waiting requests in). */
  onWritten?: () => void;
}

interface Waiting {
  payload: Buffer;
  lines: number;
  queuedAt: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * After the last sign of more lines (a request queued, a write finished and its senders answered),
 * how long the batcher waits for the next before it writes what it has. Senders answered by a
 * write send again within a millisecond or two on a busy machine; a lone request waits this long.
 */
const QUIET_MS = 3;

/**
 * Under load, an insert aims at the lines that arrive in this many times the light-load budget
 * (300 ms by default), and its oldest request may wait that long. Lines arriving at 100,000 a
 * second then make inserts of 30,000 rows, toward the engine's large-insert floor (10.3 µs a row at
 * 48,000-row inserts against 14.1 at 8,000, docs/performance.md), and an acknowledgement takes at
 * most that wait plus one insert, well within a second.
 */
const LOADED_BUDGET_FACTOR = 3;

/** How far back the arrival rate looks: long enough to span a few inserts, short enough to follow a change of load. */
const RATE_WINDOW_MS = 1000;

/** Lines queued per millisecond over the last RATE_WINDOW_MS or so, from two half-window buckets. */
class ArrivalRate {
  private bucketStart = 0;
  private current = 0;
  private previous = 0;

  add(lines: number, now: number): void {
    this.roll(now);
    this.current += lines;
  }

  perMs(now: number): number {
    this.roll(now);
    const span = RATE_WINDOW_MS / 2 + (now - this.bucketStart);
    return (this.previous + this.current) / span;
  }

  private roll(now: number): void {
    const half = RATE_WINDOW_MS / 2;
    if (now - this.bucketStart < half) return;
    // One half-window passed: the current bucket becomes the previous; more: both are stale.
    this.previous = now - this.bucketStart < 2 * half ? this.current : 0;
    this.current = 0;
    this.bucketStart = now - ((now - this.bucketStart) % half);
  }
}

/**
 * Group commit: requests that arrive while a write is running wait together and go out as one
 * insert, so many concurrent small requests cost one store write. A request's promise settles only
 * when the write that carries its lines has finished.
 *
 * Before each write the batcher gathers: while lines are on their way (requests being read, or
 * senders just answered) it waits for them, until the target's lines wait or the oldest request
 * has waited its budget. The engine's cost per line falls with the size of its inserts (fewer parts
 * to write and merge; docs/performance.md), and without the wait a closed loop of senders settles
 * into two cohorts, each written as half the insert it could be. The target is sized to the load:
 * `gatherLines` within `gatherMs` when lines come slowly; under a fleet, while more requests are
 * being read, the lines that arrive in LOADED_BUDGET_FACTOR × `gatherMs`, up to maxBatchLines,
 * within that longer budget (gather). A lone request is written once nothing else comes for
 * QUIET_MS, whatever the target.
 */
export class GroupCommitBatcher {
  private queue: Waiting[] = [];
  private queuedLines = 0;
  private writing = false;
  /** When something last showed that more lines may come: a request queued, a write finished. */
  private lastSign = 0;
  private readonly arrivals = new ArrivalRate();
  private idle: Promise<void> = Promise.resolve();
  private markIdle: () => void = () => {};

  constructor(
    private readonly write: (payload: InsertPayload, lines: number) => Promise<void>,
    private readonly options: BatcherOptions,
  ) {}

  /**
   * Queues rows encoded by store/row-encoding.ts, as UTF-8; resolves once they are durably stored.
   * How much may queue is decided before a request's body is read (admission.ts), not here: a
   * request whose body was read and parsed is never bounced.
   */
  submit(payload: Buffer, lines: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.lastSign = performance.now();
      this.arrivals.add(lines, this.lastSign);
      this.queue.push({ payload, lines, queuedAt: this.lastSign, resolve, reject });
      this.queuedLines += lines;
      if (!this.writing) {
        this.writing = true;
        this.idle = new Promise((done) => (this.markIdle = done));
        // Let requests parsed in the same turn of the event loop join this first write.
        setImmediate(() => void this.writeLoop());
      }
    });
  }

  /** Resolves when everything submitted so far has been written (or has failed). */
  drained(): Promise<void> {
    return this.idle;
  }

  get pendingLines(): number {
    return this.queuedLines;
  }

  private takeBatch(): Waiting[] {
    let lines = 0;
    let count = 0;
    while (count < this.queue.length && (count === 0 || lines + this.queue[count].lines <= this.options.maxBatchLines)) {
      lines += this.queue[count].lines;
      count++;
    }
    return this.queue.splice(0, count);
  }

  /**
   * After a shared write fails, each request is tried on its own, so one request the store
   * refuses cannot fail the others. A refused insert writes nothing (a batch is one block), so
   * nothing is written twice.
   */
  private async writeEachAlone(batch: Waiting[]): Promise<void> {
    for (const item of batch) {
      try {
        await this.write(item.payload, item.lines);
        item.resolve();
      } catch (error) {
        item.reject(error);
      }
    }
  }

  /**
   * The lines the next insert waits for, and how long its oldest request may wait for them: at the
   * rate lines arrive now, what a loaded budget gathers, if that is more than gatherLines.
   */
  loadTarget(now = performance.now()): { lines: number; budgetMs: number } {
    const { gatherLines, gatherMs, maxBatchLines } = this.options;
    const loadedMs = gatherMs * LOADED_BUDGET_FACTOR;
    const expected = this.arrivals.perMs(now) * loadedMs;
    if (expected <= gatherLines) return { lines: Math.min(gatherLines, maxBatchLines), budgetMs: gatherMs };
    return { lines: Math.min(Math.round(expected), maxBatchLines), budgetMs: loadedMs };
  }

  /**
   * Waits while more lines are on their way: first, as under a light load, until gatherLines wait,
   * within the oldest request's gatherMs; then, if the load's target is larger, for as long as
   * requests are still being read, until the target or the loaded budget. A closed loop of fewer
   * senders than that (bench/ingest's 8) has nothing left to read once its requests are queued, so
   * it is written as before; a fleet always has more being read, so its inserts grow.
   */
  private async gather(): Promise<void> {
    const { gatherLines, gatherMs, maxBatchLines } = this.options;
    const light = Math.min(gatherLines, maxBatchLines);
    const oldest = this.queue[0].queuedAt;
    for (;;) {
      const now = performance.now();
      if (this.queuedLines >= light) break;
      if (now >= oldest + gatherMs) return;
      const quietFor = now - this.lastSign;
      if (quietFor >= QUIET_MS && !this.options.arriving?.()) return;
      await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.min(QUIET_MS - quietFor, oldest + gatherMs - now))));
    }
    const target = this.loadTarget();
    while (this.queuedLines < target.lines && performance.now() < oldest + target.budgetMs && this.options.arriving?.()) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }

  private async writeLoop(): Promise<void> {
    while (this.queue.length > 0) {
      if (this.options.gatherMs > 0) await this.gather();
      const batch = this.takeBatch();
      const lines = batch.reduce((sum, item) => sum + item.lines, 0);
      try {
        await this.write(batch.length === 1 ? batch[0].payload : batch.map((item) => item.payload), lines);
        for (const item of batch) item.resolve();
      } catch (error) {
        if (batch.length === 1) batch[0].reject(error);
        else await this.writeEachAlone(batch);
      } finally {
        this.queuedLines -= lines;
        // Its senders were just answered; those that send again will do so at once.
        this.lastSign = performance.now();
        this.options.onWritten?.();
      }
    }
    this.writing = false;
    this.markIdle();
  }
}
