import { LIMITS } from '../../wire/limits.js';
import { MEZMO_SD_ID } from '../syslog/to-line.js';
import { type ParsedLine, MONTHS, SEVERITY_LEVELS, digitsAt, isoTimestampAt, numberOrText, setField } from './parsed.js';

const FACILITIES = [
  'kern', 'user', 'mail', 'daemon', 'auth', 'syslog', 'lpr', 'news', 'uucp', 'cron', 'authpriv', 'ftp', 'ntp', 'audit', 'alert', 'clock',
  'local0', 'local1', 'local2', 'local3', 'local4', 'local5', 'local6', 'local7',
];

/** `<PRI>` at the start: its value 0-191 and the index after `>`, or null. */
function priority(text: string): { value: number; end: number } | null {
  if (text[0] !== '<') return null;
  let end = 1;
  while (end < 5 && digitsAt(text, end, 1)) end++;
  if (end === 1 || text[end] !== '>') return null;
  const value = +text.slice(1, end);
  return value <= 191 ? { value, end: end + 1 } : null;
}

/** A header token, or undefined for RFC 5424's NILVALUE `-`. */
const nil = (token: string) => (token === '-' ? undefined : token);

/**
 * A syslog header at the start of a line, as relays and container runtimes forward them:
 * RFC 5424 (`<165>1 2026-11-26T10:00:00.003Z host app 1234 ID47 [sd@1 k="v"] message`) or RFC 3164
 * (`<34>Nov 26 10:00:00 host app[1234]: message`, also without the `<PRI>`). The header's host and
 * app become the line's host and app, its severity the level; the process id, message id,
 * facility and structured-data parameters become fields; the rest of the line is the message.
 */
export function parseSyslogHeader(text: string): ParsedLine | null {
  const pri = priority(text);
  if (pri && text[pri.end] === '1' && text[pri.end + 1] === ' ') return parse5424(text, pri.value, pri.end + 2);
  return parse3164(text, pri?.value, pri?.end ?? 0);
}

function withPriority(fields: Record<string, unknown>, value: number | undefined): string | undefined {
  if (value === undefined) return undefined;
  setField(fields, 'facility', FACILITIES[value >> 3] ?? value >> 3);
  return SEVERITY_LEVELS[value & 7];
}

function parse5424(text: string, pri: number, start: number): ParsedLine | null {
  // TIMESTAMP HOSTNAME APP-NAME PROCID MSGID, each a token or "-"
  const tokens: string[] = [];
  let index = start;
  for (let count = 0; count < 5; count++) {
    const end = text.indexOf(' ', index);
    if (end < 0 || end - index > 255 || end === index) return null;
    tokens.push(text.slice(index, end));
    index = end + 1;
  }
  const [time, host, app, procid, msgid] = tokens;
  let ts: number | undefined;
  if (time !== '-') {
    const parsed = isoTimestampAt(time, 0);
    if (!parsed || parsed.end !== time.length) return null;
    ts = parsed.ms;
  }
  const fields: Record<string, unknown> = {};
  const level = withPriority(fields, pri);
  if (nil(procid)) setField(fields, 'pid', numberOrText(procid));
  if (nil(msgid)) setField(fields, 'msgid', msgid);
  // STRUCTURED-DATA: "-" or one or more [id name="value" ...]
  if (text[index] === '-') index += 1;
  else if (text[index] === '[') {
    while (text[index] === '[') {
      const end = readElement(text, index, fields);
      if (end < 0) return null;
      index = end;
    }
  }
  // Else no structured data at all: Heroku's log drains leave it out, and the message follows MSGID.
  if (text[index] === ' ') index++;
  let message = text.slice(index);
  if (message.charCodeAt(0) === 0xfeff) message = message.slice(1); // the BOM RFC 5424 allows before UTF-8 text
  fields.message = message;
  return { logtype: 'syslog', fields, level, ts, host: nil(host)?.slice(0, LIMITS.hostname), app: nil(app)?.slice(0, LIMITS.app) };
}

/**
 * One `[id name="value" ...]` element from `open`: its parameters as fields; the index after `]`,
 * or -1. Mezmo's own element (`logdna@48950`) is read past but kept out of the fields: it carries
 * the sender's ingestion key, which must never be stored.
 */
function readElement(text: string, open: number, lineFields: Record<string, unknown>): number {
  let index = open + 1;
  while (index < text.length && text[index] !== ' ' && text[index] !== ']') index++;
  const fields = text.slice(open + 1, index) === MEZMO_SD_ID ? {} : lineFields;
  while (text[index] === ' ') {
    const equals = text.indexOf('="', index + 1);
    if (equals < 0) return -1;
    const name = text.slice(index + 1, equals);
    if (!/^[^\s="\]]{1,32}$/.test(name)) return -1;
    let end = equals + 2;
    let value = '';
    let segment = end;
    for (;;) {
      if (end >= text.length) return -1;
      const code = text.charCodeAt(end);
      if (code === 34) break;
      if (code === 92 && end + 1 < text.length) {
        value += text.slice(segment, end) + text[end + 1];
        end += 2;
        segment = end;
        continue;
      }
      end++;
    }
    value += text.slice(segment, end);
    setField(fields, name, numberOrText(value));
    index = end + 1;
  }
  return text[index] === ']' ? index + 1 : -1;
}

function parse3164(text: string, pri: number | undefined, start: number): ParsedLine | null {
  // "Mmm dd hh:mm:ss " (a single-digit day is padded with a space)
  if (MONTHS[text.slice(start, start + 3)] === undefined || text[start + 3] !== ' ') return null;
  const day = text[start + 4] === ' ' ? start + 5 : start + 4;
  if (!digitsAt(text, day, 1) || (text[day + 1] !== ' ' && !(digitsAt(text, day + 1, 1) && text[day + 2] === ' '))) return null;
  const time = text[day + 1] === ' ' ? day + 2 : day + 3;
  if (!digitsAt(text, time, 2) || text[time + 2] !== ':' || !digitsAt(text, time + 3, 2) || text[time + 5] !== ':' || !digitsAt(text, time + 6, 2) || text[time + 8] !== ' ') return null;
  let index = time + 9;
  // HOSTNAME then TAG[pid]: ; some senders leave the host out, so a first token ending in ':' is the tag.
  const firstEnd = text.indexOf(' ', index);
  if (firstEnd < 0 || firstEnd === index || firstEnd - index > 256) return null;
  let host: string | undefined;
  let tagEnd = firstEnd;
  if (text[firstEnd - 1] !== ':') {
    host = text.slice(index, firstEnd);
    index = firstEnd + 1;
    tagEnd = text.indexOf(': ', index);
    const space = text.indexOf(' ', index);
    if (tagEnd < 0 || (space >= 0 && space < tagEnd) || tagEnd - index > 128) {
      // No tag: the rest is the message (valid RFC 3164).
      tagEnd = -1;
    }
  } else tagEnd = firstEnd - 1;
  const fields: Record<string, unknown> = {};
  const level = withPriority(fields, pri);
  let app: string | undefined;
  if (tagEnd > index) {
    let tag = text.slice(index, tagEnd);
    const bracket = tag.indexOf('[');
    if (bracket > 0 && tag[tag.length - 1] === ']') {
      setField(fields, 'pid', numberOrText(tag.slice(bracket + 1, -1)));
      tag = tag.slice(0, bracket);
    }
    app = tag;
    index = tagEnd + 2;
  }
  // Without a <PRI> the header must at least name its program, or a dated sentence would pass.
  if (pri === undefined && app === undefined) return null;
  fields.message = text.slice(index);
  return { logtype: 'syslog', fields, level, host: host?.slice(0, LIMITS.hostname), app: app?.slice(0, LIMITS.app) };
}

/** How Mezmo's element starts in a line's text. */
const MEZMO_ELEMENT = `[${MEZMO_SD_ID}`;

/**
 * The line's text without Mezmo's `[logdna@48950 key="..." tags="..."]` structured-data element,
 * wherever it stands (the header of a relayed syslog line, or a message whose structured data did
 * not parse): it carries the sender's ingestion key, which must never be stored or shown. The
 * element becomes RFC 5424's NILVALUE `-` where it stood alone, so the header still reads as one;
 * beside other elements it simply goes. An element that never closes takes the rest of the line
 * with it, as its key may be anywhere in that rest.
 */
export function withoutMezmoElement(text: string): string {
  let open = text.indexOf(MEZMO_ELEMENT);
  while (open >= 0) {
    const after = text[open + MEZMO_ELEMENT.length];
    if (after !== ' ' && after !== ']') {
      // Another id that starts the same way (logdna@489501): not Mezmo's.
      open = text.indexOf(MEZMO_ELEMENT, open + 1);
      continue;
    }
    const end = elementEnd(text, open + MEZMO_ELEMENT.length);
    if (end < 0) return text.slice(0, open).trimEnd();
    const alone = text[open - 1] !== ']' && text[end] !== '[';
    text = text.slice(0, open) + (alone ? '-' : '') + text.slice(end);
    open = text.indexOf(MEZMO_ELEMENT, open);
  }
  return text;
}

/** The index after the `]` that closes an element whose parameters start at `from` (quoted values, `\` escapes), or -1. */
function elementEnd(text: string, from: number): number {
  let quoted = false;
  for (let index = from; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (quoted && code === 92 /* \ */) index++;
    else if (code === 34 /* " */) quoted = !quoted;
    else if (!quoted && code === 93 /* ] */) return index + 1;
  }
  return -1;
}
