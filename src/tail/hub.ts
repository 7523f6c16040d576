import { randomUUID } from 'node:crypto';
import { Listeners } from '../lib/listeners.js';
import type { AccessScope } from '../query/access-scope.js';
import type { LineFilters } from '../query/line-matcher.js';
import type { SearchableLine } from '../query/searchable.js';
import { sharedExportRecord } from '../store/export-record.js';
import type { StoredLine } from '../store/types.js';

/** Above this many lines a second a tail is sampled, and told so, rather than flooding the client. */
export const MAX_LINES_PER_SECOND = 1000;

/** An even spread of `count` of `items`, keeping their order: how a tail over its rate is sampled. */
export function evenSpread<T>(items: T[], count: number): T[] {
  if (count <= 0) return [];
  const step = items.length / count;
  return Array.from({ length: count }, (_, i) => items[Math.floor(i * step)]);
}

export interface TailSubscriber {
  /** What the tail keeps, so another node can filter for it too. */
  filters: LineFilters;
  /** The access scope of whoever opened it, which every node holds its lines to. */
  scope: AccessScope;
  matches: (line: SearchableLine) => boolean;
  /** `skipped`: matching lines another node left out to keep within the tail's rate. */
  deliver: (records: Array<Record<string, unknown>>, skipped?: number) => void;
}

/** Where a hub's lines also go when other nodes have tails open: see cluster-tail.ts. */
export interface TailRelay {
  /** The local tails changed: other nodes should know which organisations and filters to send here. */
  changed(): void;
  /** Lines stored here, for the tails open at other nodes. */
  forward(account: string, rows: StoredLine[]): void;
  /** Whether a tail open at another node would take an organisation's lines from here. */
  wants(account: string): boolean;
  /** Who may see what in an organisation changed here: the other nodes' tails should look again. */
  accessChanged(account: string): void;
}

/** Live tail: hands every stored line to the open tails of its organisation that match it. */
export class TailHub {
  private readonly byAccount = new Map<string, Map<string, TailSubscriber>>();
  /** Each open tail's check of its opener's credentials and scope, by organisation. */
  private readonly accessChecks = new Map<string, Listeners<void>>();
  relay: TailRelay | undefined;

  /** Runs `check` whenever who may see what in `account` changes; returns how to stop. */
  watchAccess(account: string, check: () => void): () => void {
    let checks = this.accessChecks.get(account);
    if (!checks) this.accessChecks.set(account, (checks = new Listeners<void>()));
    const unsubscribe = checks.subscribe(check);
    return () => {
      unsubscribe();
      if (checks!.size === 0 && this.accessChecks.get(account) === checks) this.accessChecks.delete(account);
    };
  }

  /**
   * A member's groups or a group's scope changed (made here): the tails open here check their
   * opener at once rather than at their next periodic check, and so do those at other nodes.
   */
  accessChanged(account: string): void {
    this.checkAccess(account);
    this.relay?.accessChanged(account);
  }

  /** Runs the tails' checks of one organisation here (told by another node through the relay). */
  checkAccess(account: string): void {
    // Each check starts its own lookup and handles its own failure: nothing to wait for here.
    void this.accessChecks.get(account)?.emit().catch(() => {
      // A check answers its own lookup's failure; one that throws has nothing more to tell here.
    });
  }

  subscribe(account: string, subscriber: TailSubscriber): () => void {
    let subscribers = this.byAccount.get(account);
    if (!subscribers) this.byAccount.set(account, (subscribers = new Map()));
    const id = randomUUID();
    subscribers.set(id, subscriber);
    this.relay?.changed();
    return () => {
      subscribers!.delete(id);
      if (subscribers!.size === 0) this.byAccount.delete(account);
      this.relay?.changed();
    };
  }

  /** Whether any tail, here or (through the relay) at another node, takes an organisation's lines. */
  reads(account: string): boolean {
    return this.byAccount.has(account) || (this.relay?.wants(account) ?? false);
  }

  publish(account: string, rows: StoredLine[]): void {
    const subscribers = this.byAccount.get(account);
    if (subscribers) {
      for (const subscriber of subscribers.values()) {
        const matched = rows.filter(subscriber.matches);
        if (matched.length) subscriber.deliver(matched.map(sharedExportRecord));
      }
    }
    this.relay?.forward(account, rows);
  }

  /** Lines another node matched for one of the tails open here. */
  deliverTo(id: string, records: Array<Record<string, unknown>>, skipped: number): void {
    for (const subscribers of this.byAccount.values()) subscribers.get(id)?.deliver(records, skipped);
  }

  /** The open tails, as other nodes need to know them. */
  subscriptions(): Array<{ id: string; account: string; filters: LineFilters; scope: AccessScope }> {
    const out: Array<{ id: string; account: string; filters: LineFilters; scope: AccessScope }> = [];
    for (const [account, subscribers] of this.byAccount) {
      for (const [id, subscriber] of subscribers) out.push({ id, account, filters: subscriber.filters, scope: subscriber.scope });
    }
    return out;
  }

  get size(): number {
    let total = 0;
    for (const subscribers of this.byAccount.values()) total += subscribers.size;
    return total;
  }
}
