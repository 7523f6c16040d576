import type { Channel } from '../views/channels.js';
import type { AccessScope } from '../query/access-scope.js';

/*
 * What an alert that fired hands to delivery. The evaluator (alerts/) makes these and notify/
 * renders them, so they live here, below both: alerts and export import notify, never the reverse.
 */

/**
 * Why an alert fired: presence in its window (at once or when the window ended), or absence; or
 * `resolve`, when a channel that auto-resolves closes what it opened (alerts/incidents.ts).
 */
export type FireKind = 'immediate' | 'terminal' | 'absence' | 'resolve';

/** Everything a notification needs about one alert that fired. */
export interface AlertEvent {
  fireId: number;
  account: string;
  viewid: string;
  viewName: string;
  query: string;
  channel: Channel;
  presetid: string | null;
  /** Why nothing is sent to the channel's target (its setter is gone): the fire is recorded, not delivered. */
  held: string | null;
  /** The access scopes that bound what it carries (the view's, the setter's), for the delivery log. */
  scopes: AccessScope[];
  kind: FireKind;
  windowStart: number;
  windowEnd: number;
  matches: number;
  /** The first matched lines of the window, as exported records. */
  samples: Array<Record<string, unknown>>;
  firedAt: number;
}
