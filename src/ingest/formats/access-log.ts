import { type ParsedLine, MONTHS, digitsAt, isDigit, numberOrText, setField, setRequestLine } from './parsed.js';

/** A remote address, ident or user longer than this is not an access log's. */
const MAX_TOKEN = 256;

/** `26/Nov/2026:10:00:00 +0000` at `at` (the text after `[`), as Unix ms, or null. */
function clfTime(text: string, at: number): number | null {
  if (!digitsAt(text, at, 2) || text[at + 2] !== '/' || text[at + 6] !== '/' || !digitsAt(text, at + 7, 4) || text[at + 11] !== ':') return null;
  const month = MONTHS[text.slice(at + 3, at + 6)];
  if (month === undefined) return null;
  if (!digitsAt(text, at + 12, 2) || text[at + 14] !== ':' || !digitsAt(text, at + 15, 2) || text[at + 17] !== ':' || !digitsAt(text, at + 18, 2)) return null;
  if (text[at + 20] !== ' ' || (text[at + 21] !== '+' && text[at + 21] !== '-') || !digitsAt(text, at + 22, 4) || text[at + 26] !== ']') return null;
  const utc = Date.UTC(+text.slice(at + 7, at + 11), month, +text.slice(at, at + 2), +text.slice(at + 12, at + 14), +text.slice(at + 15, at + 17), +text.slice(at + 18, at + 20));
  const offsetMinutes = (+text.slice(at + 22, at + 24) * 60 + +text.slice(at + 24, at + 26)) * (text[at + 21] === '-' ? -1 : 1);
  return utc - offsetMinutes * 60_000;
}

/** The end (index of the closing quote) of a quoted string whose opening quote is at `open`; backslash escapes skipped. */
function closingQuote(text: string, open: number): number {
  for (let index = open + 1; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 92) index++;
    else if (code === 34) return index;
    else if (code === 10) return -1;
  }
  return -1;
}

const unescapeQuoted = (value: string) => (value.includes('\\') ? value.replace(/\\(x[0-9a-fA-F]{2}|.)/g, (_, escaped: string) => (escaped.length === 3 ? String.fromCharCode(parseInt(escaped.slice(1), 16)) : escaped)) : value);

/**
 * An Apache or nginx access log line in the common or combined format:
 * `1.2.3.4 - user [26/Nov/2026:10:00:00 +0000] "GET /a HTTP/1.1" 200 512 "referrer" "agent"`,
 * optionally followed by a response time (a number of seconds, as nginx's `$request_time` or
 * Apache's `%T`, or whole microseconds, as Apache's `%D`) and `key=value` pairs. Each part is read
 * at its fixed place; the first one out of place ends the attempt.
 */
export function parseAccessLog(text: string): ParsedLine | null {
  return parseFrom(text, 0) ?? vhostCombined(text);
}

/**
 * Apache's `vhost_combined` (Debian's other_vhosts_access.log): `www.example.com:443 ` before a
 * combined line; the virtual host becomes `vhost`.
 */
function vhostCombined(text: string): ParsedLine | null {
  const space = text.indexOf(' ');
  if (space < 3 || space > MAX_TOKEN) return null;
  let colon = space - 1;
  while (colon > 0 && isDigit(text.charCodeAt(colon))) colon--;
  if (text[colon] !== ':' || colon === space - 1) return null;
  const parsed = parseFrom(text, space + 1);
  if (parsed?.fields) parsed.fields = { vhost: text.slice(0, space), ...parsed.fields };
  return parsed;
}

function parseFrom(text: string, start: number): ParsedLine | null {
  const addressEnd = text.indexOf(' ', start);
  if (addressEnd <= start || addressEnd - start > MAX_TOKEN) return null;
  const identEnd = text.indexOf(' ', addressEnd + 1);
  if (identEnd < 0 || identEnd - addressEnd > MAX_TOKEN) return null;
  const userEnd = text.indexOf(' ', identEnd + 1);
  if (userEnd < 0 || userEnd - identEnd > MAX_TOKEN || text[userEnd + 1] !== '[') return null;
  const ts = clfTime(text, userEnd + 2);
  if (ts === null) return null;
  let index = userEnd + 30; // past "] "
  if (text[index - 1] !== ' ' || text[index] !== '"') return null;
  const requestEnd = closingQuote(text, index);
  if (requestEnd < 0 || text[requestEnd + 1] !== ' ' || !digitsAt(text, requestEnd + 2, 3) || text[requestEnd + 5] !== ' ') return null;
  const request = unescapeQuoted(text.slice(index + 1, requestEnd));
  const status = +text.slice(requestEnd + 2, requestEnd + 5);
  index = requestEnd + 6;
  let bytesEnd = index;
  while (bytesEnd < text.length && isDigit(text.charCodeAt(bytesEnd))) bytesEnd++;
  if (bytesEnd === index && text[index] === '-') bytesEnd++;
  if (bytesEnd === index || (bytesEnd < text.length && text[bytesEnd] !== ' ' && text[bytesEnd] !== '\n')) return null;

  const fields: Record<string, unknown> = {};
  setField(fields, 'remote_addr', text.slice(start, addressEnd));
  const user = text.slice(identEnd + 1, userEnd);
  if (user !== '-') setField(fields, 'remote_user', user);
  setRequestLine(fields, request);
  setField(fields, 'status', status);
  if (text[index] !== '-') setField(fields, 'bytes', +text.slice(index, bytesEnd));

  // Combined: the referrer and user agent, quoted.
  index = bytesEnd;
  if (text[index] === ' ' && text[index + 1] === '"') {
    const referrerEnd = closingQuote(text, index + 1);
    if (referrerEnd > 0 && text[referrerEnd + 1] === ' ' && text[referrerEnd + 2] === '"') {
      const agentEnd = closingQuote(text, referrerEnd + 2);
      if (agentEnd > 0) {
        const referrer = unescapeQuoted(text.slice(index + 2, referrerEnd));
        if (referrer !== '-') setField(fields, 'referrer', referrer);
        const agent = unescapeQuoted(text.slice(referrerEnd + 3, agentEnd));
        if (agent !== '-') setField(fields, 'user_agent', agent);
        index = agentEnd + 1;
      }
    }
  }
  readTrailing(text, index, fields);
  return { logtype: 'nginx', fields, ts };
}

/** Names under which formats log the response time, in seconds. */
const RESPONSE_TIME_KEYS = new Set(['rt', 'request_time', 'response_time', 'upstream_response_time', 'urt']);

/** What a custom log format appends: a bare response time, `key=value` pairs, quoted extras (skipped). */
function readTrailing(text: string, from: number, fields: Record<string, unknown>): void {
  const newline = text.indexOf('\n', from);
  const rest = text.slice(from, newline < 0 ? text.length : newline).trim();
  if (!rest) return;
  for (const token of rest.split(' ')) {
    if (!token || token === '-') continue;
    const equals = token.indexOf('=');
    if (equals > 0) {
      const key = token.slice(0, equals);
      const raw = token.slice(equals + 1);
      const value = numberOrText(raw.length > 1 && raw[0] === '"' && raw[raw.length - 1] === '"' ? raw.slice(1, -1) : raw);
      if (RESPONSE_TIME_KEYS.has(key) && typeof value === 'number' && fields.response_time === undefined) fields.response_time = value;
      if (/^[A-Za-z_][\w.-]*$/.test(key)) setField(fields, key, value);
    } else if (fields.response_time === undefined) {
      const value = numberOrText(token);
      // Seconds have a fraction (nginx, Apache %T is whole seconds but rarely used alone); Apache's %D is whole microseconds.
      if (typeof value === 'number') fields.response_time = token.includes('.') ? value : value / 1e6;
    }
  }
}
