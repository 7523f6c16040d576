import { parseAccessLog } from './access-log.js';
import { parseAlb, parseCloudFront } from './aws.js';
import { CRON_APPS, asCron, parseBareCron } from './cron.js';
import { parseApacheError, parseNginxError } from './error-log.js';
import { parseGoPanic } from './go-panic.js';
import { parseHaproxy } from './haproxy.js';
import { asHerokuRouter } from './heroku.js';
import { parseBareStackTrace, parseTomcat, withStackTrace } from './java.js';
import { parseLogfmt } from './logfmt.js';
import { mariadbPaddedTimeEnd, parseMysql } from './mysql.js';
import { type ParsedLine, isDigit, isoTimestampAt } from './parsed.js';
import { parsePostgres } from './postgresql.js';
import { parsePrefix } from './prefix.js';
import { parseRails } from './rails.js';
import { parseRedis } from './redis.js';
import { parseSyslogHeader } from './syslog-header.js';

export type { ParsedLine } from './parsed.js';
export { dockerLine } from './docker.js';
export { tailRecordLine } from './fluent-bit-tail.js';

/** Whether an access log's app or file names Apache rather than nginx (the bytes are the same). */
const APACHE_SOURCE = /apache|httpd/i;

/**
 * Reads a line that is not JSON in the first format that claims it, or returns null (the line
 * stays text). The first character picks the one or two formats worth trying, and each reads its
 * parts at fixed places, failing at the first one out of place: a line no format claims costs a
 * few character comparisons, never a regular expression over the line. `source` is the line's app
 * and file, which decide between the names `apache` and `nginx` for an access log.
 */
export function parseFormat(text: string, source: string): ParsedLine | null {
  const first = text.charCodeAt(0);
  if (first === 60 /* < */) return syslog(text) ?? prefix(text);
  if (first === 91 /* [ */) return parseApacheError(text) ?? parseRails(text) ?? prefix(text);
  if (first === 58 /* : */) return address(text, source); // ::1, an IPv6 address
  if (isDigit(first)) {
    // 2026/11/26 (nginx error), 2026-11-26 (a timestamp prefix, PostgreSQL, MySQL, CloudFront),
    // 10:00:00 (a time prefix), 1234:M (Redis), 28-Nov-2026 (Tomcat), else an address.
    const fifth = text.charCodeAt(4);
    if (fifth === 47 /* / */) return parseNginxError(text);
    if (fifth === 45 /* - */) return text.charCodeAt(10) === 9 /* tab */ ? parseCloudFront(text) : timestamped(text);
    if (text.charCodeAt(2) === 58 /* : */ && isDigit(text.charCodeAt(3))) return prefix(text);
    if (text.charCodeAt(2) === 45 /* - */) return parseTomcat(text) ?? address(text, source);
    let digits = 1;
    while (isDigit(text.charCodeAt(digits))) digits++;
    if (text.charCodeAt(digits) === 58 /* : */ && text.charCodeAt(digits + 2) === 32) return parseRedis(text, digits) ?? address(text, source);
    return address(text, source);
  }
  const isUpper = first >= 65 && first <= 90;
  const isLower = first >= 97 && first <= 122;
  if (!isUpper && !isLower && first !== 95 /* _ */) return null;
  // A word then '=' before any space: logfmt.
  const space = text.indexOf(' ');
  const equals = text.indexOf('=');
  if (equals > 0 && (space < 0 || equals < space)) {
    const parsed = parseLogfmt(text);
    return parsed && (asHerokuRouter(parsed, text) ?? parsed);
  }
  if (isUpper) {
    // Rails' request lines, Ruby Logger's "I, [", a thread's uncaught exception, cron without its header.
    const second = text.charCodeAt(1);
    if ((second === 44 /* , */ && text.charCodeAt(3) === 91) || first === 83 /* S */ || first === 80 /* P */ || first === 67 /* C */) {
      const rails = parseRails(text) ?? (first === 67 && text.charCodeAt(4) === 91 ? parseBareCron(text) : null);
      if (rails) return rails;
    }
    if (first === 69 /* E */ && text.startsWith('Exception in thread ')) return parseBareStackTrace(text);
    return syslog(text) ?? prefix(text);
  }
  // A lower-case start: a Go panic, an ALB entry (`https 2026-...`), a bare Java exception
  // (`java.lang.IllegalStateException: boom` then frames), or a host name before an access log.
  if (space < 0) return null;
  if ((first === 112 /* p */ && text.charCodeAt(space - 1) === 58) || (first === 102 /* f */ && text.startsWith('fatal error: '))) return parseGoPanic(text) ?? parseBareStackTrace(text);
  if (space <= 5 && isDigit(text.charCodeAt(space + 1)) && text.charCodeAt(space + 5) === 45) return parseAlb(text, space);
  if (text.charCodeAt(space - 1) === 58 /* : */) return parseBareStackTrace(text);
  return accessLog(text, source);
}

/** A syslog header, and the message of the programs whose lines are known by their name. */
function syslog(text: string): ParsedLine | null {
  const parsed = parseSyslogHeader(text);
  const app = parsed?.app;
  if (app === undefined || !parsed?.fields) return parsed;
  const message = parsed.fields.message;
  if (typeof message !== 'string') return parsed;
  if (app === 'haproxy') {
    const inner = parseHaproxy(message);
    return inner ? { ...parsed, logtype: 'haproxy', fields: { ...parsed.fields, ...inner.fields } } : parsed;
  }
  if (CRON_APPS.has(app)) return asCron(parsed);
  if (app === 'heroku' || app === 'router') {
    const logfmt = parseLogfmt(message);
    const inner = logfmt && asHerokuRouter(logfmt, message);
    return inner ? { ...parsed, logtype: 'heroku', fields: { ...parsed.fields, ...inner.fields }, level: inner.level ?? parsed.level } : parsed;
  }
  return parsed;
}

/** A line starting with an ISO date (or MariaDB's, its hour padded with a space): PostgreSQL, MySQL or MariaDB, or a level-and-time prefix. */
function timestamped(text: string): ParsedLine | null {
  const paddedEnd = mariadbPaddedTimeEnd(text);
  if (paddedEnd > 0) return parseMysql(text, paddedEnd, undefined) ?? prefix(text);
  const time = isoTimestampAt(text, 0);
  if (time && text.charCodeAt(time.end) === 32) {
    const next = text.charCodeAt(time.end + 1);
    const parsed = isDigit(next) ? parseMysql(text, time.end, time.ms) : next === 104 /* h */ ? herokuCli(text, time.end + 1, time.ms) : next !== 91 /* [ */ ? parsePostgres(text, time.end) : null;
    if (parsed) return parsed;
  }
  return prefix(text);
}

/** What `heroku logs` prints: `2026-11-28T10:00:00.123456+00:00 heroku[router]: at=info ...`. */
function herokuCli(text: string, at: number, ts: number | undefined): ParsedLine | null {
  if (!text.startsWith('heroku[router]: ', at)) return null;
  const message = text.slice(at + 16);
  const logfmt = parseLogfmt(message);
  const parsed = logfmt && asHerokuRouter(logfmt, message);
  return parsed && { ...parsed, ts: ts ?? parsed.ts };
}

/** A level-and-time prefix, and a Java stack trace below it. */
function prefix(text: string): ParsedLine | null {
  return withStackTrace(text, parsePrefix(text));
}

/** An address first: HAProxy (`addr:port [time]`) or an access log. */
function address(text: string, source: string): ParsedLine | null {
  const space = text.indexOf(' ');
  if (space > 0 && text.charCodeAt(space + 1) === 91 /* [ */ && isDigit(text.charCodeAt(space - 1))) {
    const haproxy = parseHaproxy(text);
    if (haproxy) return haproxy;
  }
  return accessLog(text, source);
}

function accessLog(text: string, source: string): ParsedLine | null {
  const parsed = parseAccessLog(text);
  if (parsed && source && APACHE_SOURCE.test(source)) parsed.logtype = 'apache';
  return parsed;
}
