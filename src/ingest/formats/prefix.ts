import { type ParsedLine, MONTHS, digitsAt, isoTimestampAt, levelWord, setField } from './parsed.js';

/** The end of a word of letters starting at `at`. */
function wordEnd(text: string, at: number): number {
  let end = at;
  while (end < text.length && end - at < 10) {
    const code = text.charCodeAt(end);
    if (!((code >= 65 && code <= 90) || (code >= 97 && code <= 122))) break;
    end++;
  }
  return end;
}

/**
 * A level word at `at`, bare or in brackets (`ERROR`, `[WARN]`, `<info>`), ending at a space,
 * colon or the line's end: the level and the index after it, or null.
 */
function levelAt(text: string, at: number): { level: string; end: number } | null {
  const open = text[at];
  const bracketed = open === '[' || open === '<' || open === '(';
  const start = bracketed ? at + 1 : at;
  const end = wordEnd(text, start);
  const level = levelWord(text.slice(start, end));
  if (level === undefined) return null;
  let after = end;
  if (bracketed) {
    if (text[after] !== (open === '[' ? ']' : open === '<' ? '>' : ')')) return null;
    after++;
  }
  const next = text[after];
  if (after < text.length && next !== ' ' && next !== ':' && next !== '\t' && next !== '\n') return null;
  return { level, end: after };
}

const skipSpaces = (text: string, at: number) => {
  while (text[at] === ' ' || text[at] === '\t') at++;
  return at;
};

/** `hh:mm:ss` with an optional `.mmm` or `,mmm` (logback's and log4j's default time): its end, or -1. */
function clockAt(text: string, at: number): number {
  if (!digitsAt(text, at, 2) || text[at + 2] !== ':' || !digitsAt(text, at + 3, 2) || text[at + 5] !== ':' || !digitsAt(text, at + 6, 2)) return -1;
  let end = at + 8;
  if ((text[end] === '.' || text[end] === ',') && digitsAt(text, end + 1, 1)) {
    end++;
    while (digitsAt(text, end, 1)) end++;
  }
  return end;
}

/**
 * Levels and timestamps where loggers put them, read left to right at fixed places:
 * `2026-11-26T10:00:00Z ERROR ...` and `[2026-11-26 10:00:00,123] [WARN] ...`; Python's default
 * `ERROR:root:message` and its common `asctime - name - LEVEL - message`; logback's and log4j's
 * `10:00:00.123 [main] ERROR com.example.App - ...`; Spring Boot's `... ERROR 1234 --- [main] ...`;
 * java.util.logging's two-line `Nov 26, 2026 10:00:00 AM com.example.Main run` then `SEVERE: ...`;
 * and a bare `WARN ...` or `[WARN] ...`. The line stays text; only its level, its time (when the
 * timestamp names its zone) and a Python logger's name are taken.
 */
export function parsePrefix(text: string): ParsedLine | null {
  let index = 0;
  let ts: number | undefined;
  // A timestamp, bare or bracketed.
  const bracketedTime = text[0] === '[' && digitsAt(text, 1, 2);
  const timeStart = bracketedTime ? 1 : 0;
  const iso = isoTimestampAt(text, timeStart);
  if (iso) {
    index = iso.end;
    ts = iso.ms;
  } else {
    const clock = clockAt(text, timeStart);
    if (clock > 0) index = clock;
    else if (!bracketedTime && MONTHS[text.slice(0, 3)] !== undefined && text[3] === ' ') return javaUtilLogging(text);
  }
  if (bracketedTime) {
    if (index === 0 || text[index] !== ']') return null;
    index++;
  }
  index = skipSpaces(text, index);
  if (index > 0 && text[index] === '-' && text[index + 1] === ' ') return pythonCommon(text, index + 2, ts); // asctime - name - LEVEL -
  // logback: a bracketed thread before the level
  if (index > 0 && text[index] === '[' && levelAt(text, index) === null) {
    const close = text.indexOf('] ', index);
    if (close < 0 || close - index > 100) return ts === undefined ? null : { logtype: null, fields: null, ts };
    index = skipSpaces(text, close + 2);
  }
  const found = levelAt(text, index);
  if (!found) return ts === undefined ? null : { logtype: null, fields: null, ts };
  // Python's default format: LEVEL:logger:message
  if (index === 0 && text[found.end] === ':' && text[found.end + 1] !== ' ') {
    const loggerEnd = text.indexOf(':', found.end + 1);
    if (loggerEnd > found.end + 1 && loggerEnd - found.end < 128 && !text.slice(found.end + 1, loggerEnd).includes(' ')) {
      const fields: Record<string, unknown> = {};
      setField(fields, 'logger', text.slice(found.end + 1, loggerEnd));
      return { logtype: null, fields, level: found.level, ts };
    }
  }
  return { logtype: null, fields: null, level: found.level, ts };
}

/** Python's `%(asctime)s - %(name)s - %(levelname)s - %(message)s`, from the name on. */
function pythonCommon(text: string, at: number, ts: number | undefined): ParsedLine | null {
  const nameEnd = text.indexOf(' - ', at);
  if (nameEnd < 0 || nameEnd - at > 128) return ts === undefined ? null : { logtype: null, fields: null, ts };
  const found = levelAt(text, nameEnd + 3);
  if (!found) return ts === undefined ? null : { logtype: null, fields: null, ts };
  const fields: Record<string, unknown> = {};
  setField(fields, 'logger', text.slice(at, nameEnd));
  return { logtype: null, fields, level: found.level, ts };
}

/** java.util.logging's SimpleFormatter: `Nov 26, 2026 10:00:00 AM class method`, then `LEVEL: message` on the next line (a `java` line). */
function javaUtilLogging(text: string): ParsedLine | null {
  if (text[3] !== ' ' || text.indexOf(', ', 4) > 7) return null;
  const newline = text.indexOf('\n');
  if (newline < 0 || newline > 300) return null;
  const header = text.slice(0, newline);
  if (!/ [AP]M /.test(header)) return null;
  const found = levelAt(text, newline + 1);
  if (!found || text[found.end] !== ':') return null;
  return { logtype: 'java', fields: null, level: found.level };
}
