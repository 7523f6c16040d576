import { type ParsedLine, digitsAt, isDigit, numberOrText, setField } from './parsed.js';

/** PostgreSQL's severities onto the levels lineLevel stores; DETAIL, HINT, STATEMENT and the like belong to the message before them. */
const SEVERITIES: Record<string, string | undefined> = {
  DEBUG1: 'DEBUG', DEBUG2: 'DEBUG', DEBUG3: 'DEBUG', DEBUG4: 'DEBUG', DEBUG5: 'DEBUG',
  LOG: 'INFO', INFO: 'INFO', NOTICE: 'NOTICE', WARNING: 'WARN', ERROR: 'ERROR', FATAL: 'FATAL', PANIC: 'FATAL',
  DETAIL: undefined, HINT: undefined, QUERY: undefined, CONTEXT: undefined, LOCATION: undefined, STATEMENT: undefined,
};

/**
 * A PostgreSQL text log line with the default `log_line_prefix` `%m [%p] ` (Debian's adds
 * `%q%u@%d `): `2026-11-28 10:00:00.123 UTC [1234] postgres@shop LOG:  duration: 12.3 ms  statement: SELECT 1`.
 * `timeEnd` is where the ISO time (read by the caller) ends. The zone is PostgreSQL's abbreviation:
 * UTC, GMT and numeric offsets give the line's time; a named zone (CET) would be a guess.
 */
export function parsePostgres(text: string, timeEnd: number): ParsedLine | null {
  // " UTC [1234] "
  if (text[timeEnd] !== ' ') return null;
  const zoneEnd = text.indexOf(' ', timeEnd + 1);
  if (zoneEnd < 0 || zoneEnd - timeEnd > 7 || text[zoneEnd + 1] !== '[') return null;
  let pidEnd = zoneEnd + 2;
  while (isDigit(text.charCodeAt(pidEnd))) pidEnd++;
  if (pidEnd === zoneEnd + 2 || text[pidEnd] !== ']' || text[pidEnd + 1] !== ' ') return null;
  let index = pidEnd + 2;
  const fields: Record<string, unknown> = {};
  setField(fields, 'pid', +text.slice(zoneEnd + 2, pidEnd));
  // Debian's %q%u@%d: the session's user and database, absent for background processes.
  const severityEnd = text.indexOf(':  ', index);
  if (severityEnd < 0 || severityEnd - index > 140) return null;
  const space = text.lastIndexOf(' ', severityEnd);
  if (space >= index) {
    const session = text.slice(index, space);
    const at = session.indexOf('@');
    if (at < 0 || session.includes(' ')) return null;
    if (at > 0) setField(fields, 'user', session.slice(0, at));
    if (at < session.length - 1) setField(fields, 'database', session.slice(at + 1));
    index = space + 1;
  }
  const severity = text.slice(index, severityEnd);
  if (!(severity in SEVERITIES)) return null;
  setField(fields, 'severity', severity);
  const newline = text.indexOf('\n', severityEnd);
  const message = text.slice(severityEnd + 3, newline < 0 ? text.length : newline);
  // log_min_duration_statement and log_duration: "duration: 12.3 ms  statement: SELECT 1"
  if (message.startsWith('duration: ')) {
    const unit = message.indexOf(' ms', 10);
    const duration = unit > 10 ? numberOrText(message.slice(10, unit)) : '';
    if (typeof duration === 'number') setField(fields, 'duration_ms', duration);
    const statement = message.indexOf('  statement: ', unit);
    if (statement > 0) setField(fields, 'statement', message.slice(statement + 13));
  } else if (message.startsWith('statement: ')) setField(fields, 'statement', message.slice(11));
  else if (severity === 'STATEMENT') setField(fields, 'statement', message);
  fields.message = message;
  return { logtype: 'postgresql', fields, level: SEVERITIES[severity], ts: zoned(text, timeEnd, zoneEnd) };
}

/** The line's time when its zone is UTC, GMT or a numeric offset (`+03`, `-0530`). */
function zoned(text: string, timeEnd: number, zoneEnd: number): number | undefined {
  const zone = text.slice(timeEnd + 1, zoneEnd);
  let suffix: string;
  if (zone === 'UTC' || zone === 'GMT') suffix = 'Z';
  else if ((zone[0] === '+' || zone[0] === '-') && digitsAt(zone, 1, 2)) {
    if (zone.length === 3) suffix = `${zone}:00`;
    else if (zone.length === 5 && digitsAt(zone, 3, 2)) suffix = `${zone.slice(0, 3)}:${zone.slice(3)}`;
    else return undefined;
  } else return undefined;
  const ms = Date.parse(`${text.slice(0, 10)}T${text.slice(11, timeEnd)}${suffix}`);
  return Number.isNaN(ms) ? undefined : ms;
}
