/**
 * Line ids: milliseconds × 1024 plus a counter, so they sort by arrival, stay unique across
 * restarts (the clock moves on) and remain exact JavaScript numbers until the year 2248.
 * Bursts above 1,024 lines per millisecond borrow from the next millisecond.
 */
const PER_MS = 1024;

export class LineIds {
  private last = 0;

  /** Reserves `count` consecutive ids and returns the first. */
  reserve(count: number): number {
    const first = Math.max(this.last + 1, Date.now() * PER_MS);
    this.last = first + count - 1;
    return first;
  }
}
