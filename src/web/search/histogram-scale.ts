import type { HistogramBucket } from '../api-client/client.js';
import type { TimeFormats } from '../shared/time-formats.js';

/** The timeline chart's geometry, axes and level groups, apart from drawing it. */

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
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const STEPS = [SECOND, 5 * SECOND, 10 * SECOND, 30 * SECOND, MINUTE, 5 * MINUTE, 10 * MINUTE, 15 * MINUTE, 30 * MINUTE, HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 2 * DAY, 7 * DAY];

/** How long one bar is, in words: "1 minute", "30 seconds". */
export function describeInterval(ms: number): string {
  const units: Array<[number, string]> = [
    [DAY, 'day'],
    [HOUR, 'hour'],
    [MINUTE, 'minute'],
    [SECOND, 'second'],
  ];
  // The server's interval can be off a whole unit by a fraction of a millisecond.
  const rounded = ms >= SECOND ? Math.round(ms / SECOND) * SECOND : Math.round(ms);
  for (const [size, unit] of units) {
    if (rounded >= size && rounded % size === 0) return `${rounded / size} ${unit}${rounded / size === 1 ? '' : 's'}`;
  }
  return `${rounded} ms`;
}

/** Time ticks on round times of the chosen zone, about one per 110 pixels. */
export function timeTicks(from: number, to: number, width: number, { clock, clockSeconds, day, offsetMinutes, hourMinute }: TimeFormats): Array<{ at: number; label: string }> {
  const wanted = Math.max(2, Math.floor(width / 110));
  const step = STEPS.find((candidate) => (to - from) / candidate <= wanted) ?? STEPS[STEPS.length - 1];
  const offset = -offsetMinutes(from) * MINUTE;
  const first = Math.ceil((from - offset) / step) * step + offset;
  const ticks = [];
  for (let at = first; at <= to; at += step) {
    const [hours, minutes] = hourMinute(at);
    const midnight = hours === 0 && minutes === 0;
    const label = step >= DAY || (midnight && step >= HOUR) ? day.format(new Date(at)) : step < MINUTE ? clockSeconds.format(new Date(at)) : clock.format(new Date(at));
    ticks.push({ at, label });
  }
  return ticks;
}

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
