/**
 * Byte buffers used again rather than left to the collector: the ingest path's encoded rows, and
 * the inserts that join them.
 *
 * Why: a request's encoded rows live until its insert is acknowledged, half a second under a
 * fleet's load. Their Buffer objects outlive V8's young generation, so the memory behind them is
 * freed only at the next full collection: under a fleet of 32 senders Node's external memory
 * peaked at 81-92 MiB, and with this pool at 42-45 (docs/performance.md, "Node's share of the
 * memory cut"). A buffer given back once its insert is written is taken by the next request.
 *
 * Buffers come in power-of-two sizes from MIN_POOLED_BYTES to MAX_POOLED_BYTES; smaller and larger
 * ones are allocated as usual, at the size asked, and never kept: a flood of one-line requests
 * must not hold a pooled buffer each until its insert. At most `maxFreeBytes` wait to be taken,
 * and all of them are let go once nothing has been taken for IDLE_MS, so a server at rest holds
 * none.
 */

export const MIN_POOLED_BYTES = 64 * 1024;
export const MAX_POOLED_BYTES = 16 * 1024 * 1024;
/** Once nothing has been taken for this long, the waiting buffers are let go. */
const IDLE_MS = 10_000;

function sizeClass(bytes: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(bytes, MIN_POOLED_BYTES)));
}

export class BufferPool {
  private readonly free = new Map<number, Buffer[]>();
  private freeBytes = 0;
  private lastTaken = 0;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(private readonly maxFreeBytes: number) {}

  /**
   * A buffer of at least `bytes` bytes, its contents whatever they were (as Buffer.allocUnsafe).
   * Give it back with `give` once nothing reads it any more, or simply drop it.
   */
  take(bytes: number): Buffer {
    this.lastTaken = performance.now();
    if (bytes < MIN_POOLED_BYTES || bytes > MAX_POOLED_BYTES) return Buffer.allocUnsafe(bytes);
    const size = sizeClass(bytes);
    const waiting = this.free.get(size)?.pop();
    if (!waiting) return Buffer.allocUnsafeSlow(size);
    this.freeBytes -= size;
    return waiting;
  }

  /**
   * Takes back a buffer from `take`, whole (not a slice of it), that nothing reads or writes any
   * more: the next `take` may hand it out. Others are left to the collector.
   */
  give(buffer: Buffer): void {
    if (!this.keeps(buffer)) return;
    const size = buffer.length;
    if (this.freeBytes + size > this.maxFreeBytes) return;
    let list = this.free.get(size);
    if (!list) this.free.set(size, (list = []));
    list.push(buffer);
    this.freeBytes += size;
    this.idleTimer ??= setInterval(() => this.letGoWhenIdle(), IDLE_MS).unref();
  }

  /** Whether `give` would keep this buffer: a whole one of a pooled size, not one allocated as usual. */
  keeps(buffer: Buffer): boolean {
    const size = buffer.length;
    const whole = buffer.byteOffset === 0 && buffer.buffer.byteLength === size;
    return whole && size >= MIN_POOLED_BYTES && size <= MAX_POOLED_BYTES && size === sizeClass(size);
  }

  /** Bytes waiting to be taken. */
  get waitingBytes(): number {
    return this.freeBytes;
  }

  private letGoWhenIdle(): void {
    if (performance.now() - this.lastTaken < IDLE_MS) return;
    this.free.clear();
    this.freeBytes = 0;
    clearInterval(this.idleTimer);
    this.idleTimer = undefined;
  }
}

/**
 * The ingest path's pool: requests' encoded rows (store/row-encoding.ts, taken by the intake) and
 * the embedded engine's joined inserts (store/chdb-executor.ts). Its bound is about what a fleet of
 * 32 senders with 1,000-line bodies keeps in flight.
 */
export const ingestBuffers = new BufferPool(48 * 1024 * 1024);
