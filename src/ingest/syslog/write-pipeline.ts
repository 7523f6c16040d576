/**
 * What a connection (or the UDP socket) has read and not yet written: one batch is being written
 * while the next gathers, so a busy sender's messages are written in ever larger batches, a lone
 * message at once. Past `maxHeldBytes` the pipeline says it is full, and a stream listener stops
 * reading until the write in flight finishes: TCP then holds the sender back.
 */
export interface PipelineOptions<T> {
  /** Writes one batch; resolves once it is durable (or given up on). */
  write(items: T[]): Promise<void>;
  sizeOf(item: T): number;
  maxBatchItems: number;
  maxHeldBytes: number;
  /** Called when held bytes pass maxHeldBytes, and again when they fall back under it. */
  onFull?(full: boolean): void;
  onError(error: unknown): void;
}

export class WritePipeline<T> {
  private held: T[] = [];
  private heldBytes = 0;
  private full = false;
  private writing: Promise<void> | undefined;

  constructor(private readonly options: PipelineOptions<T>) {}

  get isFull(): boolean {
    return this.full;
  }

  push(items: T[]): void {
    if (items.length === 0) return;
    for (const item of items) {
      this.held.push(item);
      this.heldBytes += this.options.sizeOf(item);
    }
    this.setFull(this.heldBytes >= this.options.maxHeldBytes);
    this.next();
  }

  /** Resolves when everything pushed so far is written. */
  async drained(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private next(): void {
    if (this.writing || this.held.length === 0) return;
    const batch = this.held.length <= this.options.maxBatchItems ? this.held : this.held.slice(0, this.options.maxBatchItems);
    this.held = batch === this.held ? [] : this.held.slice(batch.length);
    for (const item of batch) this.heldBytes -= this.options.sizeOf(item);
    this.setFull(this.heldBytes >= this.options.maxHeldBytes);
    this.writing = this.options
      .write(batch)
      .catch((error: unknown) => this.options.onError(error))
      .finally(() => {
        this.writing = undefined;
        this.next();
      });
  }

  private setFull(full: boolean): void {
    if (full === this.full) return;
    this.full = full;
    this.options.onFull?.(full);
  }
}
