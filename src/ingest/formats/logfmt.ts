import { type ParsedLine, isoTimestampAt, levelWord, numberOrText, setField } from './parsed.js';

const isKeyStart = (code: number) => (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95;
const isKeyChar = (code: number) => isKeyStart(code) || (code >= 48 && code <= 57) || code === 46 || code === 45 || code === 47;

/** Keys whose value is the line's level or time, as Go's slog, logrus and Heroku write them. */
const LEVEL_KEYS = new Set(['level', 'lvl', 'severity']);
const TIME_KEYS = new Set(['time', 'ts', 'timestamp', 't']);

/**
 * A logfmt line (`level=info msg="started" duration=12ms`): the whole first line of text must be
 * `key=value` pairs (values bare or double-quoted with backslash escapes) or bare keys, and it must
 * start with a pair, so ordinary prose with one `key=value` in it stays text. One pass, no regex.
 * Numbers become numbers; `level` sets the line's level and `time` its time when it names a zone.
 */
export function parseLogfmt(text: string): ParsedLine | null {
  const length = text.length;
  if (length < 3 || !isKeyStart(text.charCodeAt(0))) return null;
  const fields: Record<string, unknown> = {};
  let level: string | undefined;
  let ts: number | undefined;
  let pairs = 0;
  let index = 0;
  while (index < length) {
    const code = text.charCodeAt(index);
    if (code === 32 || code === 9) {
      index++;
      continue;
    }
    if (code === 10 || code === 13) break; // a stack trace below the first line stays in the text
    if (!isKeyStart(code)) return null;
    const keyStart = index;
    while (index < length && isKeyChar(text.charCodeAt(index))) index++;
    const key = text.slice(keyStart, index);
    const next = index < length ? text.charCodeAt(index) : 32;
    if (next === 32 || next === 9 || next === 10 || next === 13) {
      if (pairs === 0) return null; // prose starts with a word, logfmt with a pair
      setField(fields, key, true);
      continue;
    }
    if (next !== 61 /* = */) return null;
    index++;
    let value: string | number;
    if (text.charCodeAt(index) === 34 /* " */) {
      index++;
      let raw = '';
      let segment = index;
      for (;;) {
        if (index >= length) return null; // an unclosed quote: not logfmt
        const char = text.charCodeAt(index);
        if (char === 34) break;
        if (char === 92 /* \ */ && index + 1 < length) {
          raw += text.slice(segment, index);
          const escaped = text[index + 1];
          raw += escaped === 'n' ? '\n' : escaped === 't' ? '\t' : escaped;
          index += 2;
          segment = index;
          continue;
        }
        index++;
      }
      value = raw + text.slice(segment, index);
      index++;
      const after = index < length ? text.charCodeAt(index) : 32;
      if (after !== 32 && after !== 9 && after !== 10 && after !== 13) return null;
    } else {
      const valueStart = index;
      while (index < length) {
        const char = text.charCodeAt(index);
        if (char === 32 || char === 9 || char === 10 || char === 13) break;
        if (char === 34) return null; // a quote inside a bare value: not logfmt
        index++;
      }
      value = numberOrText(text.slice(valueStart, index));
    }
    pairs++;
    if (typeof value === 'string') {
      if (level === undefined && LEVEL_KEYS.has(key)) {
        level = levelWord(value) ?? value;
        if (key === 'level') continue;
      }
      if (ts === undefined && TIME_KEYS.has(key)) {
        const time = isoTimestampAt(value, 0);
        if (time?.ms !== undefined && time.end === value.length) ts = time.ms;
      }
    }
    setField(fields, key, value);
  }
  // One pair alone (`a=b`) is too little to call a format.
  if (pairs < 2) return null;
  return { logtype: 'logfmt', fields, level, ts };
}
