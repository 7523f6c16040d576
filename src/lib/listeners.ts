/**
 * Who hears of a change. A source (the views, the organisations) owns its listeners; whoever cares
 * subscribes once it exists, so neither needs the other at construction. `emit` waits for every
 * listener in turn: a write that changes alert rules returns only once the rules follow it.
 */
export class Listeners<T> {
  private readonly listeners = new Set<(value: T) => unknown>();

  /** Returns the way to unsubscribe. */
  subscribe(listener: (value: T) => unknown): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** How many are subscribed. */
  get size(): number {
    return this.listeners.size;
  }

  async emit(value: T): Promise<void> {
    for (const listener of this.listeners) await listener(value);
  }
}
