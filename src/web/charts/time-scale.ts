import type { TimeFormats } from '../shared/time-formats.js';

/** Time on a chart's horizontal axis: round ticks in the zone shown, and a bucket's length in words. Shared by the timeline and the boards' graphs. */

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


/**
 * Where to centre a tick label `width` pixels wide that belongs at `centre`, so that it stays
 * within 0..`limit` (the chart's width): a label near an edge moves inwards rather than being cut
 * ("09:00 PI" for "09:00 PM" at the right edge of a zoomed graph).
 */
export function labelCentre(centre: number, width: number, limit: number): number {
  const half = width / 2;
  if (width >= limit) return limit / 2;
  return Math.min(limit - half, Math.max(half, centre));
}
