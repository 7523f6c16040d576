import type { Channel } from '../views/channels.js';
import type { FireKind } from '../notify/alert-event.js';

/** An absence alert only runs while its view has had lines this recently (compat reference §6.1). */
export const ACTIVE_FOR_MS = 24 * 3_600_000;

/**
 * The decision rules of an alert channel, shared by the live evaluator and the backtest so that
 * both say the same about the same lines (compat reference §6.2).
 */
type Rule = Pick<Channel, 'operator' | 'triggerlimit' | 'immediate' | 'terminal'>;

/** Presence + immediate: fires once per window, as soon as the window's count reaches the limit. */
export function firesImmediately(channel: Rule, count: number, firedImmediate: boolean): boolean {
  return channel.operator === 'presence' && channel.immediate && !firedImmediate && count >= channel.triggerlimit;
}

/**
 * What fires when a window ends: presence + terminal if the count reached the limit and immediate
 * did not fire in it; absence if the count is under the limit while the view is active (it had a
 * line within ACTIVE_FOR_MS of the window's end).
 */
export function firesAtWindowEnd(channel: Rule, count: number, firedImmediate: boolean, viewActive: boolean): FireKind | null {
  if (channel.operator === 'presence') return channel.terminal && !firedImmediate && count >= channel.triggerlimit ? 'terminal' : null;
  return count < channel.triggerlimit && viewActive ? 'absence' : null;
}

/** Whether a view whose newest line arrived at `lastLineAt` counts as active at `at`. */
export const isActiveAt = (lastLineAt: number | undefined, at: number) => lastLineAt !== undefined && lastLineAt >= at - ACTIVE_FOR_MS;
