import type { FastifyBaseLogger } from 'fastify';
import type { StoredBatch } from '../store/types.js';

/**
 * Whoever hears of a request's lines once they are durably stored, before the client is answered:
 * metrics, live tail and alerting subscribe (a node that dies after acknowledging has already
 * counted its lines in the alert windows).
 */
export interface StoredLinesSubscriber {
  /** Names it in the log when it fails. */
  name: string;
  /**
   * Whether it reads an organisation's stored lines themselves. When no subscriber does, a request
   * keeps only counts through its write (StoredBatch), and its lines can be collected young.
   */
  wantsRows?(account: string): boolean;
  /** A request's stored lines; `batch.rows` is there when some subscriber wants the rows. */
  stored(account: string, batch: StoredBatch): Promise<unknown> | void;
}

/** What happens after a line is stored: the interface ingest owns and the readers of new lines subscribe to. */
export class AfterStore {
  private readonly subscribers: StoredLinesSubscriber[] = [];

  /** Returns the way to unsubscribe. */
  subscribe(subscriber: StoredLinesSubscriber): () => void {
    this.subscribers.push(subscriber);
    return () => {
      const index = this.subscribers.indexOf(subscriber);
      if (index >= 0) this.subscribers.splice(index, 1);
    };
  }

  wantsRows(account: string): boolean {
    for (const subscriber of this.subscribers) if (subscriber.wantsRows?.(account)) return true;
    return false;
  }

  /** Tells every subscriber in turn; one that fails is logged and does not fail the request, whose lines are stored. */
  async publish(account: string, batch: StoredBatch, log: FastifyBaseLogger): Promise<void> {
    for (const subscriber of this.subscribers) {
      try {
        const hearing = subscriber.stored(account, batch);
        if (hearing) await hearing;
      } catch (error) {
        log.error({ err: error }, `${subscriber.name} failed on stored lines`);
      }
    }
  }
}
