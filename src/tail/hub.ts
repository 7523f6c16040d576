import { sharedExportRecord } from '../store/export-record.js';
import type { SearchableLine } from '../query/searchable.js';
import type { StoredLine } from '../store/types.js';

export interface TailSubscriber {
  matches: (line: SearchableLine) => boolean;
  deliver: (records: Array<Record<string, unknown>>) => void;
}

/** Live tail: hands every stored line to the open tails of its organisation that match it. */
export class TailHub {
  private readonly byAccount = new Map<string, Set<TailSubscriber>>();

  subscribe(account: string, subscriber: TailSubscriber): () => void {
    let set = this.byAccount.get(account);
    if (!set) this.byAccount.set(account, (set = new Set()));
    set.add(subscriber);
    return () => {
      set!.delete(subscriber);
      if (set!.size === 0) this.byAccount.delete(account);
    };
  }

  publish(account: string, rows: StoredLine[]): void {
    const subscribers = this.byAccount.get(account);
    if (!subscribers) return;
    for (const subscriber of subscribers) {
      const matched = rows.filter(subscriber.matches);
      if (matched.length) subscriber.deliver(matched.map(sharedExportRecord));
    }
  }

  get size(): number {
    let total = 0;
    for (const set of this.byAccount.values()) total += set.size;
    return total;
  }
}
