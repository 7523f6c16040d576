/** Times show in the reader's own time zone, or in UTC (as servers log). */
export type Zone = 'local' | 'UTC';

export interface TimeFormats {
  zone: Zone;
  /** A line's time: date, clock and milliseconds. */
  full: Intl.DateTimeFormat;
  clock: Intl.DateTimeFormat;
  clockSeconds: Intl.DateTimeFormat;
  day: Intl.DateTimeFormat;
  /** Minutes the zone is ahead of UTC at a time, for placing ticks on round local times. */
  offsetMinutes: (ms: number) => number;
  /** Hour and minute of a time in the zone. */
  hourMinute: (ms: number) => [number, number];
}

export function timeFormats(zone: Zone): TimeFormats {
  const timeZone = zone === 'UTC' ? 'UTC' : undefined;
  return {
    zone,
    full: new Intl.DateTimeFormat(undefined, { timeZone, month: 'short', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', fractionalSecondDigits: 3 }),
    clock: new Intl.DateTimeFormat(undefined, { timeZone, hour: '2-digit', minute: '2-digit' }),
    clockSeconds: new Intl.DateTimeFormat(undefined, { timeZone, hour: '2-digit', minute: '2-digit', second: '2-digit' }),
    day: new Intl.DateTimeFormat(undefined, { timeZone, month: 'short', day: 'numeric' }),
    offsetMinutes: (ms) => (zone === 'UTC' ? 0 : -new Date(ms).getTimezoneOffset()),
    hourMinute: (ms) => (zone === 'UTC' ? [new Date(ms).getUTCHours(), new Date(ms).getUTCMinutes()] : [new Date(ms).getHours(), new Date(ms).getMinutes()]),
  };
}

/** A stored choice as a zone: UTC only when UTC was chosen. */
export const zoneOf = (stored: string | null): Zone => (stored === 'UTC' ? 'UTC' : 'local');

/** datetime-local inputs hold a wall-clock time without a zone: it is read in the zone the viewer shows. */
export const toInput = (ms: number, zone: Zone) => new Date(zone === 'UTC' ? ms : ms - new Date(ms).getTimezoneOffset() * 60_000).toISOString().slice(0, 19);
export const fromInput = (value: string, zone: Zone) => Date.parse(zone === 'UTC' && value ? `${value}Z` : value);
