import type { HistogramBucket } from '../api-client/client.js';

/** The timeline chart's geometry, axes and level groups, apart from drawing it. */

// The time scale is shared with the boards' line charts.
export { describeInterval, timeTicks } from '../charts/time-scale.js';

/** Bar segments from the bottom up: the levels that need attention sit lowest, where the eye finds them. */
const LEVELS: Array<{ name: string; levels: string[]; colour: string }> = [
  { name: 'fatal', levels: ['FATAL', 'CRITICAL', 'EMERGENCY', 'ALERT'], colour: 'var(--level-fatal)' },
  { name: 'error', levels: ['ERROR', 'SEVERE'], colour: 'var(--level-error)' },
  { name: 'warn', levels: ['WARN', 'WARNING'], colour: 'var(--level-warn)' },
  { name: 'info', levels: ['INFO', 'NOTICE'], colour: 'var(--level-info)' },
  { name: 'debug', levels: ['DEBUG', 'TRACE'], colour: 'var(--level-debug)' },
];
const KNOWN = new Set(LEVELS.flatMap((group) => group.levels));

export const HEIGHT = 96;
export const LEFT = 44;
export const BOTTOM = 18;
export const TOP = 6;
export const RIGHT = 24;
/** A round top for the count axis: 1, 2 or 5 times a power of ten. */
export function niceMax(max: number): number {
  const power = 10 ** Math.floor(Math.log10(Math.max(1, max)));
  const top = [1, 2, 5, 10].map((n) => n * power).find((n) => n >= max) ?? max;
  // Counts are whole: an odd top would put a fraction at the middle gridline.
  return top % 2 ? top + 1 : top;
}

export function segments(bucket: HistogramBucket): Array<{ name: string; colour: string; count: number }> {
  const parts = LEVELS.map((group) => ({ name: group.name, colour: group.colour, count: group.levels.reduce((sum, level) => sum + (bucket.levels[level] ?? 0), 0) }));
  const other = Object.entries(bucket.levels)
    .filter(([level]) => !KNOWN.has(level))
    .reduce((sum, [, n]) => sum + n, 0);
  return [...parts, { name: 'other', colour: 'var(--level-other)', count: other }];
}
