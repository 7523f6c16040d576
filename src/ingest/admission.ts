import { OverloadedError } from '../lib/ingest-errors.js';

export interface AdmissionOptions {
  /** Lines allowed to wait for the store; while more wait, new requests wait before their body is read. */
  maxQueuedLines: number;
  /** Bytes of request bodies being read and parsed at once: bounds memory under a stream of large requests. */
  maxReadingBytes: number;
  /** How long a request may wait for room before it is shed with 503. */
  waitMs: number;
}

interface Waiter {
  bytes: number;
  admit: () => void;
  timer: NodeJS.Timeout;
}

/** What a request was admitted with; released once its lines are queued for the store (or it failed). */
export interface Ticket {
  release(): void;
}

/**
 * Admission control for ingestion, decided when a request arrives and before its body is read.
 * A request is let in while the store's queue has room and the bodies already being read stay
 * under a byte budget. Otherwise it waits, in arrival order, with its body unread, so TCP holds the
 * sender back; most bursts clear within seconds, as the store writes. Only a request that has
 * waited `waitMs` is shed with 503, to be retried. Shedding after reading and parsing a body would
 * bounce bursts the store could absorb a moment later, and clients such as Fluent Bit drop a chunk
 * refused twice.
 */
export class IngestAdmission {
  private readingBytes = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    private readonly queuedLines: () => number,
    private readonly options: AdmissionOptions,
  ) {}

  /** Resolves when the request may read its body; rejects with OverloadedError (a 503) when the wait runs out. */
  async admit(bytes: number): Promise<Ticket> {
    if (this.waiting.length === 0 && this.hasRoomFor(bytes)) {
      this.readingBytes += bytes;
      return this.ticket(bytes);
    }
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        bytes,
        admit: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        timer: setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          reject(new OverloadedError(this.options.waitMs));
        }, this.options.waitMs),
      };
      this.waiting.push(waiter);
    });
    return this.ticket(bytes); // its bytes were reserved when progress() let it in
  }

  /** Lets waiting requests in, in order, as far as there is room; called as the store writes. */
  progress(): void {
    while (this.waiting.length > 0 && this.hasRoomFor(this.waiting[0].bytes)) {
      const next = this.waiting.shift()!;
      this.readingBytes += next.bytes; // reserved now, so the next waiter sees it
      next.admit();
    }
  }

  get waitingRequests(): number {
    return this.waiting.length;
  }

  /** Whether admitted requests are being read and prepared: their lines are about to be queued. */
  get reading(): boolean {
    return this.readingBytes > 0;
  }

  private hasRoomFor(bytes: number): boolean {
    if (this.queuedLines() >= this.options.maxQueuedLines) return false;
    // One request always fits, however large, so a body at the size limit is never starved.
    return this.readingBytes === 0 || this.readingBytes + bytes <= this.options.maxReadingBytes;
  }

  private ticket(bytes: number): Ticket {
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.readingBytes -= bytes;
        this.progress();
      },
    };
  }
}
