import type { Channel } from '../views/channels.js';
import type { AlertIncident } from './alert-state.js';
import { intervalMs } from './intervals.js';

/**
 * Auto-resolve (compat reference §6.5), for the channels that take it (OpsGenie, VictorOps): once
 * a channel has fired, its incident stays open, and its lines are counted in windows of
 * `autoresolveinterval` that start when it fired. The first window with fewer than
 * `autoresolvelimit` lines (for an absence alert: more than that) closes the incident, once.
 */

type ResolveRule = Pick<Channel, 'operator' | 'autoresolveinterval' | 'autoresolvelimit'>;

export const resolveIntervalMs = (channel: ResolveRule) => intervalMs(channel.autoresolveinterval ?? '15m');

/** Whether a resolve window with `count` lines closes the incident. */
export function quietEnough(channel: ResolveRule, count: number): boolean {
  const limit = channel.autoresolvelimit ?? 1;
  return channel.operator === 'absence' ? count > limit : count < limit;
}

/** What became of an incident at `now`: closed by a window that ended, or carried on in the current window. */
export type IncidentStep = { resolved: { windowStart: number; count: number } } | { current: AlertIncident };

export function stepIncident(channel: ResolveRule, incident: AlertIncident, now: number): IncidentStep {
  const span = resolveIntervalMs(channel);
  const ended = Math.floor((now - incident.windowStart) / span);
  if (ended <= 0) return { current: incident };
  if (quietEnough(channel, incident.count)) return { resolved: { windowStart: incident.windowStart, count: incident.count } };
  // Windows that passed with no node counting had no lines counted: quiet enough for a presence alert.
  if (ended >= 2 && quietEnough(channel, 0)) return { resolved: { windowStart: incident.windowStart + span, count: 0 } };
  return { current: { ...incident, windowStart: incident.windowStart + ended * span, count: 0 } };
}

/**
 * A resolve is recorded among the fires, so the delivery log shows it with its view; fires are
 * unique per channel and window start, and a resolve's is moved to an odd millisecond, which no
 * trigger window (they start on whole seconds) starts on.
 */
export const resolveFireStart = (windowStart: number) => (windowStart % 2 === 0 ? windowStart + 1 : windowStart);
