import { createContext, useContext, useMemo, useState } from 'react';

/** Times show in the reader's own time zone, or in UTC (as servers log), chosen with a switch and kept in this browser. */
export type Zone = 'local' | 'UTC';
const KEY = 'logstead-time-zone';

export function useZoneChoice() {
  const [zone, setZone] = useState<Zone>(() => (localStorage.getItem(KEY) === 'UTC' ? 'UTC' : 'local'));
  return {
    zone,
    setZone: (next: Zone) => {
      localStorage.setItem(KEY, next);
      setZone(next);
    },
  };
}

export const ZoneContext = createContext<Zone>('local');

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

export function useTimeFormats(): TimeFormats {
  const zone = useContext(ZoneContext);
  return useMemo(() => timeFormats(zone), [zone]);
}
