/**
 * One syslog message, read from its bytes: RFC 5424, or RFC 3164 (BSD) as senders really write it.
 * Nothing here throws: a message that follows neither keeps what could be read, and the rest of
 * its text is the message.
 */

/** A structured-data element: its id and its parameters, in order (a name may repeat). */
export interface StructuredElement {
  id: string;
  params: [name: string, value: string][];
}

export interface SyslogMessage {
  /** 0–23, or undefined when the message has no <PRI>. */
  facility: number | undefined;
  /** 0 (emergency) – 7 (debug), or undefined when the message has no <PRI>. */
  severity: number | undefined;
  /** Unix ms, or undefined when the message carries no time Logstead can read (the nil value, or none). */
  time: number | undefined;
  hostname: string;
  appName: string;
  procId: string;
  msgId: string;
  structuredData: StructuredElement[];
  msg: string;
}

const BOM = '\ufeff';
const NIL = '-';

/** Severity words as the search language's levels. */
export const SEVERITY_LEVELS = ['EMERGENCY', 'ALERT', 'CRITICAL', 'ERROR', 'WARN', 'NOTICE', 'INFO', 'DEBUG'] as const;

/** Facility names (RFC 5424 §6.2.1, with the names syslog implementations give them). */
export const FACILITY_NAMES = [
  'kern', 'user', 'mail', 'daemon', 'auth', 'syslog', 'lpr', 'news', 'uucp', 'cron', 'authpriv', 'ftp', 'ntp', 'security', 'console', 'solaris-cron',
  'local0', 'local1', 'local2', 'local3', 'local4', 'local5', 'local6', 'local7',
] as const;

const MONTHS: Record<string, number> = { Jan: 0, Feb: 1, Mar: 2, Apr: 3, May: 4, Jun: 5, Jul: 6, Aug: 7, Sep: 8, Oct: 9, Nov: 10, Dec: 11 };

/** A cursor over the message text, reading space-separated header fields. */
class Reader {
  constructor(
    readonly text: string,
    public at = 0,
  ) {}

  get done(): boolean {
    return this.at >= this.text.length;
  }

  /** The next field up to a space (the space is consumed), or the rest of the text. */
  field(): string {
    const space = this.text.indexOf(' ', this.at);
    const end = space < 0 ? this.text.length : space;
    const value = this.text.slice(this.at, end);
    this.at = space < 0 ? this.text.length : space + 1;
    return value;
  }

  peek(): string {
    return this.text[this.at] ?? '';
  }

  rest(): string {
    const value = this.text.slice(this.at);
    this.at = this.text.length;
    return value;
  }
}

/** `<PRI>` at the start: its value (0–191) and where the text after it starts, or undefined. */
function readPri(text: string): { pri: number; next: number } | undefined {
  if (text[0] !== '<') return undefined;
  const close = text.indexOf('>', 1);
  if (close < 2 || close > 4) return undefined;
  const digits = text.slice(1, close);
  if (!/^\d+$/.test(digits)) return undefined;
  const pri = Number(digits);
  return pri <= 191 ? { pri, next: close + 1 } : undefined;
}

/**
 * RFC 3339 as RFC 5424 allows it (`2026-11-26T10:00:00.123456+01:00`, `...Z`), also with a space
 * for the T as some relays write it. Fractions past milliseconds are cut, as Date keeps ms.
 */
function rfc3339(value: string): number | undefined {
  const match = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})?$/i.exec(value);
  if (!match) return undefined;
  const fraction = match[3] ? `.${match[3].slice(0, 3).padEnd(3, '0')}` : '';
  const zone = match[4] ? match[4].toUpperCase() : 'Z';
  const ms = Date.parse(`${match[1]}T${match[2]}${fraction}${zone}`);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * BSD's `Mmm dd hh:mm:ss`: no year and no zone. The receiver's local time is assumed (as syslog
 * daemons do), in the year that puts it nearest to now: a December line read in January is last year's.
 */
function bsdTime(month: string, day: string, clock: string, now: number): number | undefined {
  const monthIndex = MONTHS[month];
  const dayNumber = Number(day);
  const parts = /^(\d{2}):(\d{2}):(\d{2})$/.exec(clock);
  if (monthIndex === undefined || !Number.isInteger(dayNumber) || dayNumber < 1 || dayNumber > 31 || !parts) return undefined;
  const year = new Date(now).getFullYear();
  const at = (y: number) => new Date(y, monthIndex, dayNumber, Number(parts[1]), Number(parts[2]), Number(parts[3])).getTime();
  let time = at(year);
  if (time - now > 7 * 86_400_000) time = at(year - 1);
  else if (now - time > 358 * 86_400_000) time = at(year + 1);
  return Number.isNaN(time) ? undefined : time;
}

/** RFC 5424's STRUCTURED-DATA: `-`, or elements `[id name="value" ...]` with \" \\ \] escaped in values. */
function readStructuredData(reader: Reader): StructuredElement[] | undefined {
  if (reader.peek() === NIL) {
    reader.at++;
    if (reader.peek() === ' ') reader.at++;
    return [];
  }
  const elements: StructuredElement[] = [];
  const { text } = reader;
  while (text[reader.at] === '[') {
    let at = reader.at + 1;
    const idEnd = indexOfAny(text, at, ' ]');
    if (idEnd < 0) return undefined;
    const element: StructuredElement = { id: text.slice(at, idEnd), params: [] };
    at = idEnd;
    while (text[at] === ' ') {
      at++;
      const equals = text.indexOf('=', at);
      if (equals < 0 || text[equals + 1] !== '"') return undefined;
      const name = text.slice(at, equals);
      let value = '';
      at = equals + 2;
      for (;;) {
        const quote = indexOfAny(text, at, '"\\');
        if (quote < 0) return undefined;
        value += text.slice(at, quote);
        if (text[quote] === '"') {
          at = quote + 1;
          break;
        }
        // A backslash escapes only ", \ and ]; before anything else it is itself (RFC 5424 §6.3.3).
        const escaped = text[quote + 1];
        if (escaped === '"' || escaped === '\\' || escaped === ']') {
          value += escaped;
          at = quote + 2;
        } else {
          value += '\\';
          at = quote + 1;
        }
      }
      element.params.push([name, value]);
    }
    if (text[at] !== ']') return undefined;
    elements.push(element);
    reader.at = at + 1;
  }
  if (elements.length === 0) return undefined;
  if (reader.peek() === ' ') reader.at++;
  return elements;
}

function indexOfAny(text: string, from: number, chars: string): number {
  for (let at = from; at < text.length; at++) if (chars.includes(text[at])) return at;
  return -1;
}

function nilToEmpty(value: string): string {
  return value === NIL ? '' : value;
}

/**
 * The message text as a line: a BOM (RFC 5424's marker of UTF-8, and what Fluent Bit's syslog
 * output can put first) and the leading space of rsyslog's `%msg%` are dropped, as are the
 * trailing newline and NUL that framing or syslog-ng leave inside a frame.
 */
function messageText(raw: string): string {
  let start = 0;
  let end = raw.length;
  if (raw.startsWith(BOM, start)) start += 1;
  while (start < end && raw[start] === ' ') start++;
  if (raw.startsWith(BOM, start)) start += 1;
  while (end > start && (raw[end - 1] === '\n' || raw[end - 1] === '\r' || raw[end - 1] === '\0')) end--;
  return raw.slice(start, end);
}

/** RFC 5424: `VERSION SP TIMESTAMP SP HOSTNAME SP APP-NAME SP PROCID SP MSGID SP SD [SP MSG]`, after <PRI>. */
function readRfc5424(message: SyslogMessage, reader: Reader): boolean {
  const start = reader.at;
  const version = reader.field();
  // rsyslog writes its %protocol-version% as 0 for messages it received locally.
  if (!/^\d{1,2}$/.test(version)) {
    reader.at = start;
    return false;
  }
  const timestamp = reader.field();
  const time = timestamp === NIL ? undefined : rfc3339(timestamp);
  if (timestamp !== NIL && time === undefined) {
    reader.at = start;
    return false;
  }
  message.time = time;
  message.hostname = nilToEmpty(reader.field());
  message.appName = nilToEmpty(reader.field());
  message.procId = nilToEmpty(reader.field());
  message.msgId = nilToEmpty(reader.field());
  const sdStart = reader.at;
  const structured = readStructuredData(reader);
  if (structured === undefined) reader.at = sdStart; // not structured data after all: it is the message
  else message.structuredData = structured;
  message.msg = messageText(reader.rest());
  return true;
}

/** A BSD TAG: `app[pid]:` or `app:`, which rsyslog's forward formats also write without the colon. */
function readTag(message: SyslogMessage, reader: Reader): void {
  const { text } = reader;
  const match = /^([^\s:[\]]{1,128})(?:\[([^\]\s]{0,128})\])?:?(?= |$)/.exec(text.slice(reader.at, reader.at + 300));
  if (!match) return;
  message.appName = match[1];
  message.procId = match[2] ?? '';
  reader.at += match[0].length;
}

/**
 * RFC 3164 as senders write it: `TIMESTAMP HOSTNAME TAG MSG` after <PRI>, where the timestamp is
 * BSD's `Mmm dd hh:mm:ss` or RFC 3339 (rsyslog's forward format), and the hostname may be absent
 * (a local sender's message relayed as is): then the first word is the tag.
 */
function readRfc3164(message: SyslogMessage, reader: Reader, now: number): void {
  const { text } = reader;
  const bsd = /^([A-Z][a-z]{2}) {1,2}(\d{1,2}) (\d{2}:\d{2}:\d{2})(?: |$)/.exec(text.slice(reader.at, reader.at + 20));
  if (bsd) {
    message.time = bsdTime(bsd[1], bsd[2], bsd[3], now);
    reader.at += bsd[0].length;
  } else {
    const start = reader.at;
    const time = rfc3339(reader.field());
    if (time === undefined) reader.at = start;
    else message.time = time;
  }
  if (message.time !== undefined) {
    // A word ending in ':' or holding '[' is the tag: the hostname was left out.
    const start = reader.at;
    const word = reader.field();
    if (word === '' || word.endsWith(':') || word.includes('[')) reader.at = start;
    else message.hostname = word;
  }
  readTag(message, reader);
  message.msg = messageText(reader.rest());
}

/** Reads one message's text (a frame's bytes decoded as UTF-8). `now` dates BSD timestamps. */
export function parseSyslog(text: string, now: number): SyslogMessage {
  const message: SyslogMessage = {
    facility: undefined,
    severity: undefined,
    time: undefined,
    hostname: '',
    appName: '',
    procId: '',
    msgId: '',
    structuredData: [],
    msg: '',
  };
  const body = text.startsWith(BOM) ? text.slice(1) : text;
  const pri = readPri(body);
  if (!pri) {
    message.msg = messageText(body);
    return message;
  }
  message.facility = pri.pri >> 3;
  message.severity = pri.pri & 7;
  const reader = new Reader(body, pri.next);
  if (!readRfc5424(message, reader)) readRfc3164(message, reader, now);
  return message;
}
