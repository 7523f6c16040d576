import type { InsertPayload } from '../store/executor.js';

export interface BatcherOptions {
  /** A single write carries at most this many lines (a request is never split). */
  maxBatchLines: number;
  /** Hears when a write has finished and the queue is shorter (admission lets waiting requests in). */
  onWritten?: () => void;
}

interface Waiting {
  payload: Buffer;
  lines: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: requests that arrive while a write is running wait together and go out as one
 * insert when it finishes, so many concurrent small requests cost one store write. A request's
 * promise settles only when the write that carries its lines has finished.
 */
export class GroupCommitBatcher {
  private queue: Waiting[] = [];
  private queuedLines = 0;
  private writing = false;
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
      this.queue.push({ payload, lines, resolve, reject });
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

  private async writeLoop(): Promise<void> {
    while (this.queue.length > 0) {
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
        this.options.onWritten?.();
      }
    }
    this.writing = false;
    this.markIdle();
  }
}
