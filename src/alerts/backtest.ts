import type { Channel } from '../views/channels.js';
import type { AlertWindowCount } from '../store/log-store.js';
import type { BacktestFiring } from '../wire/types.js';
import { ACTIVE_FOR_MS, firesAtWindowEnd, firesImmediately, isActiveAt } from './decision.js';

export type BacktestChannel = Pick<Channel, 'operator' | 'triggerlimit' | 'immediate' | 'terminal'>;

/** The span a backtest evaluates: whole windows ending at the last window that has ended by `now`. */
export function backtestRange(now: number, intervalMs: number, days: number): { from: number; to: number; windows: number } {
  const to = Math.floor(now / intervalMs) * intervalMs;
  const windows = Math.max(1, Math.floor((days * 24 * 3_600_000) / intervalMs));
  return { from: to - windows * intervalMs, to, windows };
}

/** How far before the range lines are read: an absence alert needs to know whether the view was active. */
export const ACTIVITY_LOOKBACK_MS = ACTIVE_FOR_MS;

/**
 * The firings an alert channel would have made over [from, to), from the matching lines counted per
 * window (lines since from - ACTIVITY_LOOKBACK_MS, oldest first), with the evaluator's own decision
 * rules. The live evaluator counts lines as they arrive; this counts them by their timestamps, so
 * the two agree when lines arrive in time order without delay.
 */
export function backtestFirings(channel: BacktestChannel, counts: AlertWindowCount[], range: { from: number; to: number }, intervalMs: number): BacktestFiring[] {
  const byStart = new Map(counts.map((window) => [window.windowStart, window]));
  const firings: BacktestFiring[] = [];
  // The newest line before the window being looked at, for the view's activity.
  let lastLineAt: number | undefined;
  let next = 0;
  for (let start = range.from; start < range.to; start += intervalMs) {
    while (next < counts.length && counts[next].windowStart < start) lastLineAt = counts[next++].lastMs;
    const window = byStart.get(start);
    const count = window?.count ?? 0;
    const end = start + intervalMs;
    const immediate = firesImmediately(channel, count, false);
    if (immediate) firings.push({ at: window?.nthMs ?? end, windowStart: start, windowEnd: end, kind: 'immediate', lines: channel.triggerlimit, windowLines: count });
    const kind = firesAtWindowEnd(channel, count, immediate, isActiveAt(window?.lastMs ?? lastLineAt, end));
    if (kind) firings.push({ at: end, windowStart: start, windowEnd: end, kind, lines: count, windowLines: count });
  }
  return firings;
}
