import { createContext, useContext, useMemo, useState } from 'react';
import { keepChoice, readChoice } from './storage.js';
import { type TimeFormats, type Zone, timeFormats, zoneOf } from './time-formats.js';

export type { TimeFormats, Zone } from './time-formats.js';

/** The zone times show in, chosen with a switch and kept in this browser. */
export function useZoneChoice() {
  const [zone, setZone] = useState<Zone>(() => zoneOf(readChoice('zone')));
  return {
    zone,
    setZone: (next: Zone) => {
      keepChoice('zone', next);
      setZone(next);
    },
  };
}

export const ZoneContext = createContext<Zone>('local');

export function useTimeFormats(): TimeFormats {
  const zone = useContext(ZoneContext);
  return useMemo(() => timeFormats(zone), [zone]);
}
