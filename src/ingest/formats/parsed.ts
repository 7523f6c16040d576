import { RESERVED_JSON_KEYS } from '../../store/reserved-keys.js';

/** The `_logtype` of each recognised format (the access-log formats are the same bytes in both servers). */
export type FormatLogtype =
  | 'logfmt' | 'apache' | 'nginx' | 'syslog'
  | 'postgresql' | 'redis' | 'mysql' | 'haproxy' | 'heroku' | 'rails' | 'java' | 'go' | 'cron' | 'docker' | 'alb' | 'cloudfront';

/** What a recognised line yields beside its fields: the built-in values its own text names. */
export interface ParsedLine {
  /** `_logtype`, or null when only a level or timestamp prefix was read (the line stays `text`). */
  logtype: FormatLogtype | null;
  /** Searchable fields, stored as a JSON line's are; null when the format carries none. */
  fields: Record<string, unknown> | null;
  level?: string;
  /** Only timestamps that name their zone: a zone-less one would be a guess. Unix ms. */
  ts?: number;
  host?: string;
  app?: string;
}

/** Names parsed fields never take: they are built-in filters, set on the line itself instead. */
const BUILT_IN = new Set(['host', 'app', 'level', 'tag', '__proto__']);
const RESERVED = new Set(RESERVED_JSON_KEYS);

/**
 * Sets a parsed field under the name a JSON line's field of that name is stored under (`status`
 * becomes `_status`, which the query language finds as `status`); the built-in filter names are
 * left out. Returns whether it was set.
 */
export function setField(fields: Record<string, unknown>, key: string, value: unknown): boolean {
  if (BUILT_IN.has(key) || key === '_account' || key === '_retention') return false;
  fields[RESERVED.has(key) ? `_${key}` : key] = value;
  return true;
}

/**
 * An HTTP request line as access logs quote it (`GET /path HTTP/1.1`): method, path and protocol,
 * or the whole of it as `request` when it has no method.
 */
export function setRequestLine(fields: Record<string, unknown>, request: string): void {
  const first = request.indexOf(' ');
  const last = request.lastIndexOf(' ');
  if (first <= 0) {
    setField(fields, 'request', request);
    return;
  }
  setField(fields, 'method', request.slice(0, first));
  setField(fields, 'path', request.slice(first + 1, last > first ? last : request.length));
  if (last > first) setField(fields, 'protocol', request.slice(last + 1));
}

/** Digits, an optional fraction and exponent; at most 15 significant characters so no id loses precision. */
export function numberOrText(value: string): string | number {
  const length = value.length;
  if (length === 0 || length > 15) return value;
  let index = value.charCodeAt(0) === 45 /* - */ ? 1 : 0;
  if (index === length) return value;
  let digits = 0;
  let dot = false;
  for (; index < length; index++) {
    const code = value.charCodeAt(index);
    if (code >= 48 && code <= 57) digits++;
    else if (code === 46 /* . */ && !dot && digits > 0) dot = true;
    else return value;
  }
  // "007" is an identifier, not seven; "0.5" and "0" are numbers.
  if (digits > 1 && value.charCodeAt(value.charCodeAt(0) === 45 ? 1 : 0) === 48 && value.charCodeAt(value.charCodeAt(0) === 45 ? 2 : 1) !== 46) return value;
  if (value.charCodeAt(length - 1) === 46) return value;
  return Number(value);
}

/** Level words, by their upper-case spelling, onto the names lineLevel stores (level.ts). */
const LEVEL_WORDS: Record<string, string> = {
  EMERGENCY: 'EMERGENCY', EMERG: 'EMERGENCY', ALERT: 'ALERT', CRITICAL: 'CRITICAL', CRIT: 'CRITICAL',
  FATAL: 'FATAL', SEVERE: 'SEVERE', ERROR: 'ERROR', ERR: 'ERROR', WARNING: 'WARN', WARN: 'WARN',
  NOTICE: 'NOTICE', INFO: 'INFO', DEBUG: 'DEBUG', TRACE: 'TRACE', FINE: 'DEBUG', FINER: 'TRACE', FINEST: 'TRACE',
};

/** The level a whole word names (any case), or undefined. */
export function levelWord(word: string): string | undefined {
  if (word.length < 3 || word.length > 9) return undefined;
  return LEVEL_WORDS[word] ?? LEVEL_WORDS[word.toUpperCase()];
}

/** Syslog severities 0-7 as levels. */
export const SEVERITY_LEVELS = ['EMERGENCY', 'ALERT', 'CRITICAL', 'ERROR', 'WARN', 'NOTICE', 'INFO', 'DEBUG'];

export const MONTHS: Record<string, number> = { Jan: 0, Feb: 1, Mar: 2, Apr: 3, May: 4, Jun: 5, Jul: 6, Aug: 7, Sep: 8, Oct: 9, Nov: 10, Dec: 11 };

export const isDigit = (code: number) => code >= 48 && code <= 57;

/** Whether `count` digits start at `at`. */
export function digitsAt(text: string, at: number, count: number): boolean {
  if (at + count > text.length) return false;
  for (let index = at; index < at + count; index++) if (!isDigit(text.charCodeAt(index))) return false;
  return true;
}

/**
 * An ISO-8601 timestamp at `at` (`2026-11-26T10:00:00`, a space instead of the T, an optional
 * fraction after `.` or `,`, an optional `Z` or offset): its end, and its time when it names its
 * zone. Returns null when none starts there.
 */
export function isoTimestampAt(text: string, at: number): { end: number; ms: number | undefined } | null {
  if (!digitsAt(text, at, 4) || text[at + 4] !== '-' || !digitsAt(text, at + 5, 2) || text[at + 7] !== '-' || !digitsAt(text, at + 8, 2)) return null;
  const separator = text[at + 10];
  if (separator !== 'T' && separator !== ' ') return null;
  if (!digitsAt(text, at + 11, 2) || text[at + 13] !== ':' || !digitsAt(text, at + 14, 2) || text[at + 16] !== ':' || !digitsAt(text, at + 17, 2)) return null;
  let end = at + 19;
  let fraction = '';
  if ((text[end] === '.' || text[end] === ',') && isDigit(text.charCodeAt(end + 1))) {
    const start = end + 1;
    end++;
    while (end < text.length && isDigit(text.charCodeAt(end))) end++;
    fraction = text.slice(start, Math.min(end, start + 3));
  }
  let zone = '';
  if (text[end] === 'Z') {
    zone = 'Z';
    end++;
  } else if ((text[end] === '+' || text[end] === '-') && digitsAt(text, end + 1, 2)) {
    if (text[end + 3] === ':' && digitsAt(text, end + 4, 2)) {
      zone = text.slice(end, end + 6);
      end += 6;
    } else if (digitsAt(text, end + 3, 2)) {
      zone = `${text.slice(end, end + 3)}:${text.slice(end + 3, end + 5)}`;
      end += 5;
    }
  }
  if (!zone) return { end, ms: undefined };
  const ms = Date.parse(`${text.slice(at, at + 10)}T${text.slice(at + 11, at + 19)}${fraction ? `.${fraction}` : ''}${zone}`);
  return { end, ms: Number.isNaN(ms) ? undefined : ms };
}
