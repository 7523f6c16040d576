import { isoTimestampAt } from './parsed.js';

/** A Docker json-file line, unwrapped. */
export interface DockerLine {
  /** The program's own line, without the newline Docker keeps. */
  inner: string;
  stream: string;
  /** Docker's receive time (RFC 3339 in UTC), Unix ms. */
  ts: number | undefined;
}

/**
 * Docker's json-file logging driver writes each line a container prints as
 * `{"log":"the line\n","stream":"stdout","time":"2026-11-28T10:00:00.123456789Z"}` (with `attrs`
 * when labels or env are logged). Given a JSON line's parsed fields, returns the line inside it
 * when it is one of those, else null: the caller parses the inner line as any other.
 */
export function dockerLine(fields: Record<string, unknown>): DockerLine | null {
  const log = fields.log;
  const stream = fields.stream;
  if (typeof log !== 'string' || (stream !== 'stdout' && stream !== 'stderr') || typeof fields.time !== 'string') return null;
  for (const key in fields) if (key !== 'log' && key !== 'stream' && key !== 'time' && key !== 'attrs') return null;
  let end = log.length;
  if (log.charCodeAt(end - 1) === 10) end--;
  if (log.charCodeAt(end - 1) === 13) end--;
  const time = isoTimestampAt(fields.time, 0);
  return { inner: log.slice(0, end), stream, ts: time?.end === fields.time.length ? time.ms : undefined };
}
