import type { HistogramBucket, LogLine } from '../api-client/client.js';

/** The timeline's bars: the buckets of the search's histogram, and their width in ms. */
export interface Timeline {
  buckets: HistogramBucket[];
  interval: number;
}

/** Adds live lines to the timeline's buckets, opening new buckets as time moves past the last one. */
export function countInto(timeline: Timeline, lines: LogLine[]): Timeline {
  if (!timeline.buckets.length || !lines.length) return timeline;
  const buckets = timeline.buckets.map((bucket) => ({ ...bucket, levels: { ...bucket.levels } }));
  for (const line of lines) {
    let last = buckets[buckets.length - 1];
    while (line._ts >= last.ts + timeline.interval) {
      last = { ts: last.ts + timeline.interval, count: 0, levels: {} };
      buckets.push(last);
    }
    const bucket = buckets.find((candidate) => line._ts >= candidate.ts && line._ts < candidate.ts + timeline.interval);
    if (!bucket) continue;
    const level = (line.level || 'OTHER').toUpperCase();
    bucket.count += 1;
    bucket.levels[level] = (bucket.levels[level] ?? 0) + 1;
  }
  // The chart keeps its width: the oldest buckets scroll off as new ones open.
  return { ...timeline, buckets: buckets.slice(-Math.max(timeline.buckets.length, 1)) };
}

/** Live lines that arrived while a search loaded, less those its first page already holds. */
export function arrivedAfter(page: LogLine[], arrived: LogLine[]): LogLine[] {
  const seen = new Set(page.map((line) => line._id));
  return arrived.filter((line) => !seen.has(line._id));
}
