/** A channel's `triggerinterval` in milliseconds: "30" is seconds, otherwise minutes or hours. */
export function intervalMs(triggerinterval: string): number {
  const match = /^(\d+)([mh]?)$/.exec(triggerinterval);
  if (!match) throw new Error(`not a trigger interval: ${triggerinterval}`);
  const n = Number(match[1]);
  return match[2] === 'h' ? n * 3_600_000 : match[2] === 'm' ? n * 60_000 : n * 1000;
}

/** Windows are tumbling and aligned to the epoch, so every process agrees where one starts. */
export const windowStart = (now: number, interval: number) => Math.floor(now / interval) * interval;
