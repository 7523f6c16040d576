/**
 * Converts a client timestamp to Unix milliseconds, detecting the unit by magnitude: agents and
 * shippers send seconds, SDKs milliseconds, journald-derived values micro- or nanoseconds, and
 * Vector or winston an ISO-8601 string. Returns null for anything unreadable.
 */
export function toMillis(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? scaleToMillis(value) : null;
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (!text) return null;
  if (/^-?\d+(\.\d+)?$/.test(text)) return scaleToMillis(Number(text));
  const parsed = Date.parse(text);
  return Number.isNaN(parsed) ? null : parsed;
}

function scaleToMillis(n: number): number {
  const magnitude = Math.abs(n);
  if (magnitude < 1e11) return Math.round(n * 1000); // seconds until the year 5138
  if (magnitude < 1e14) return Math.round(n); // milliseconds
  if (magnitude < 1e17) return Math.round(n / 1e3); // microseconds
  return Math.round(n / 1e6); // nanoseconds
}

const ONE_DAY_MS = 86_400_000;

/**
 * The time a line is stored under. A client clock that is off by more than the tolerance (measured
 * from `now`) is corrected. A timestamp that is missing, unreadable or more than a day ahead of the
 * server's clock is replaced by the receive time, as the official SDKs do on their side. A past
 * timestamp is kept as sent, however old: agents replay their disk buffers after long outages and
 * imports carry old lines; what is older than its organisation's retention is not kept (routes.ts).
 */
export function lineTime(raw: unknown, receivedAt: number, driftMs: number): number {
  const sent = toMillis(raw);
  if (sent === null) return receivedAt;
  const corrected = sent + driftMs;
  return corrected - receivedAt > ONE_DAY_MS ? receivedAt : corrected;
}
