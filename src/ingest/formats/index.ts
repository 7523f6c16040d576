import { parseAccessLog } from './access-log.js';
import { parseApacheError, parseNginxError } from './error-log.js';
import { parseLogfmt } from './logfmt.js';
import type { ParsedLine } from './parsed.js';
import { parsePrefix } from './prefix.js';
import { parseSyslogHeader } from './syslog-header.js';

export type { ParsedLine } from './parsed.js';

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
  if (first === 60 /* < */) return parseSyslogHeader(text) ?? parsePrefix(text);
  if (first === 91 /* [ */) return parseApacheError(text) ?? parsePrefix(text);
  if (first === 58 /* : */) return accessLog(text, source); // ::1, an IPv6 address
  const isDigit = first >= 48 && first <= 57;
  if (isDigit) {
    // 2026/11/26 (nginx error), 2026-11-26 or 10:00:00 (a timestamp prefix), else an address.
    const fifth = text.charCodeAt(4);
    if (fifth === 47 /* / */) return parseNginxError(text);
    if (fifth === 45 /* - */ || text.charCodeAt(2) === 58 /* : */) return parsePrefix(text);
    return accessLog(text, source);
  }
  const isUpper = first >= 65 && first <= 90;
  const isLower = first >= 97 && first <= 122;
  if (!isUpper && !isLower && first !== 95 /* _ */) return null;
  // A word then '=' before any space: logfmt.
  const space = text.indexOf(' ');
  const equals = text.indexOf('=');
  if (equals > 0 && (space < 0 || equals < space)) return parseLogfmt(text);
  if (isUpper) return parseSyslogHeader(text) ?? parsePrefix(text);
  // A lower-case start: a host name or IPv6 address before an access log's " - - [".
  return space > 0 ? accessLog(text, source) : null;
}

function accessLog(text: string, source: string): ParsedLine | null {
  const parsed = parseAccessLog(text);
  if (parsed && source && APACHE_SOURCE.test(source)) parsed.logtype = 'apache';
  return parsed;
}
