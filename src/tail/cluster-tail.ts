import type { Broadcast } from '../fanout/broadcast.js';
import type { AccessScope } from '../query/access-scope.js';
import { type LineFilters, lineMatcher } from '../query/line-matcher.js';
import type { SearchableLine } from '../query/searchable.js';
import { sharedExportRecord } from '../store/export-record.js';
import type { StoredLine } from '../store/types.js';
import { MAX_LINES_PER_SECOND, type TailHub, type TailRelay, evenSpread } from './hub.js';

const INTEREST = 'logstead_tail_interest';
/** A member's groups or a group's scope changed at some node: tails everywhere check their opener. */
const ACCESS = 'logstead_tail_access';
/** Each node hears only the lines sent to it: its own channel, named after its id. */
const linesFor = (node: string) => `logstead_tail_${node.replaceAll('-', '')}`;
/** Nodes say which tails they hold this often, and forget another node's after three silences. */
const ANNOUNCE_MS = 5000;
const FORGET_MS = 3 * ANNOUNCE_MS;

interface RemoteTail {
  id: string;
  account: string;
  matches: (line: SearchableLine) => boolean;
  /** The current second, and the lines sent for this tail in it. */
  second: number;
  sent: number;
}

interface Interest {
  node: string;
  /** A tail's scope is its opener's; a node that sent none (an older release) is held to no line. */
  tails: Array<{ id: string; account: string; filters: LineFilters; scope?: AccessScope }>;
  /** Set by a node that has just started: everyone answers with their own tails at once. */
  ask?: boolean;
  /**
   * Counts up with each announcement of the node. Announcements are published on separate
   * connections and may arrive out of order (a tail moving to a new scope is announced gone, then
   * back under its new id, at once): an older one heard after a newer is ignored, or it would hide
   * the tail until the next periodic announcement. Absent from an older release's.
   */
  seq?: number;
}

/**
 * Live tail across nodes. Each node announces the tails open at it (organisation and filters);
 * a node that stores lines matches them against other nodes' tails and sends each tail's matches
 * to its node, at most MAX_LINES_PER_SECOND a tail, with the count it left out, so sampling still
 * holds and a flood is never copied between nodes. Nothing crosses for organisations no one tails.
 */
export class ClusterTail implements TailRelay {
  private readonly remote = new Map<string, { seen: number; seq: number | undefined; tails: RemoteTail[] }>();
  private timer: NodeJS.Timeout | undefined;
  private announced = 0;

  constructor(
    private readonly broadcast: Broadcast,
    private readonly hub: TailHub,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    this.broadcast.subscribe(INTEREST, (text) => this.heard(JSON.parse(text) as Interest));
    this.broadcast.subscribe(linesFor(this.broadcast.node), (text) => {
      const message = JSON.parse(text) as { tail: string; records: Array<Record<string, unknown>>; skipped: number };
      this.hub.deliverTo(message.tail, message.records, message.skipped);
    });
    this.broadcast.subscribe(ACCESS, (text) => this.hub.checkAccess((JSON.parse(text) as { account: string }).account));
    this.hub.relay = this;
    this.announce(true);
    this.timer = setInterval(() => this.announce(false), ANNOUNCE_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.hub.relay = undefined;
  }

  changed(): void {
    this.announce(false);
  }

  accessChanged(account: string): void {
    this.broadcast.publish(ACCESS, JSON.stringify({ account })).catch(this.onError);
  }

  private announce(ask: boolean): void {
    const interest: Interest = { node: this.broadcast.node, tails: this.hub.subscriptions(), seq: ++this.announced, ...(ask ? { ask } : {}) };
    this.broadcast.publish(INTEREST, JSON.stringify(interest)).catch(this.onError);
  }

  private heard(interest: Interest): void {
    const known = this.remote.get(interest.node);
    // Stale (see Interest.seq); a node that restarted counts from 1 again, and says so with `ask`.
    if (known?.seq !== undefined && interest.seq !== undefined && interest.seq <= known.seq && !interest.ask) {
      known.seen = Date.now();
      return;
    }
    const tails: RemoteTail[] = [];
    for (const tail of interest.tails) {
      const kept = known?.tails.find((other) => other.id === tail.id);
      if (kept) {
        tails.push(kept);
        continue;
      }
      try {
        tails.push({ id: tail.id, account: tail.account, matches: lineMatcher(tail.filters, tail.scope === undefined ? [] : tail.scope), second: 0, sent: 0 });
      } catch (error) {
        // A filter this node cannot compile (another version's search language): that tail gets nothing from here.
        this.onError(error);
      }
    }
    this.remote.set(interest.node, { seen: Date.now(), seq: interest.seq, tails });
    if (interest.ask) this.announce(false);
  }

  /** The tails other nodes have open on an organisation, with their node; nodes not heard from lately are forgotten. */
  private *tailsOf(account: string): Generator<[string, RemoteTail]> {
    const now = Date.now();
    for (const [node, { seen, tails }] of this.remote) {
      if (now - seen > FORGET_MS) {
        this.remote.delete(node);
        continue;
      }
      for (const tail of tails) if (tail.account === account) yield [node, tail];
    }
  }

  wants(account: string): boolean {
    return !this.tailsOf(account).next().done;
  }

  forward(account: string, rows: StoredLine[]): void {
    const second = Math.floor(Date.now() / 1000);
    for (const [node, tail] of this.tailsOf(account)) {
      const matched = rows.filter(tail.matches);
      if (matched.length === 0) continue;
      if (tail.second !== second) {
        tail.second = second;
        tail.sent = 0;
      }
      const room = Math.max(0, MAX_LINES_PER_SECOND - tail.sent);
      const sent = matched.length > room ? evenSpread(matched, room) : matched;
      tail.sent += sent.length;
      const message = { tail: tail.id, records: sent.map(sharedExportRecord), skipped: matched.length - sent.length };
      this.broadcast.publish(linesFor(node), JSON.stringify(message)).catch(this.onError);
    }
  }
}
