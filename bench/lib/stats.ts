/** Nearest rank: the value at or just above p % of the sorted values. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * The middle value; of an even count, the mean of the two middle ones. The 50th percentile's
 * nearest rank would give the higher of two runs, so a "median of 2 runs" read as the better or
 * worse run, depending on the figure, rather than as their middle.
 */
export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
