import { NODE_SLOTS } from '../repository/node-slot.js';

/**
 * Line ids: a sequence of milliseconds × 1024 plus a counter, so they sort by arrival and stay
 * unique across restarts (the clock moves on), followed by three decimal digits naming the node,
 * so that nodes sharing one store never hand out the same id. The sequence stays an exact
 * JavaScript number until the year 2248, and the whole id fits the store's UInt64 until 2540.
 * Bursts above 1,024 lines per millisecond borrow from the next millisecond.
 */
const PER_MS = 1024;

export class LineIds {
  private last = 0;
  private readonly suffix: string;
  /** The digits above the last six of the sequence last formatted, kept: a request's ids share them. */
  private high = -1;
  private highDigits = '';

  /** `slot` is this node's number from 0 to 999; an embedded server, the only node, is 0. */
  constructor(slot = 0) {
    if (!Number.isInteger(slot) || slot < 0 || slot >= NODE_SLOTS) throw new RangeError(`a node slot is 0 to ${NODE_SLOTS - 1}, not ${slot}`);
    this.suffix = String(slot).padStart(3, '0');
  }

  /** Reserves `count` consecutive sequence numbers and returns the first. */
  reserve(count: number): number {
    const first = Math.max(this.last + 1, Date.now() * PER_MS);
    this.last = first + count - 1;
    return first;
  }

  /**
   * The id of a reserved sequence number. Written as its leading digits, which consecutive ids
   * share, and its last six: turning a 16-digit number into text costs twice as much, on every line.
   */
  format(sequence: number): string {
    const low = sequence % 1_000_000;
    const high = (sequence - low) / 1_000_000;
    if (high === 0) return `${low}${this.suffix}`;
    if (high !== this.high) {
      this.high = high;
      this.highDigits = String(high);
    }
    return `${this.highDigits}${String(low).padStart(6, '0')}${this.suffix}`;
  }
}
