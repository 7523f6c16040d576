import { type ParsedLine, MONTHS, digitsAt, isDigit, setField, setRequestLine } from './parsed.js';

/** The index after `count` integers (an optional `+` or `-` before each) separated by `/` from `at`, their values in `into`; -1 when they are not there. */
function slashNumbers(text: string, at: number, count: number, into: number[]): number {
  let index = at;
  for (let part = 0; part < count; part++) {
    if (part > 0) {
      if (text[index] !== '/') return -1;
      index++;
    }
    const start = index;
    if (text[index] === '+' || text[index] === '-') index++;
    const digits = index;
    while (isDigit(text.charCodeAt(index))) index++;
    if (index === digits) return -1;
    into.push(Number(text[start] === '+' ? text.slice(digits, index) : text.slice(start, index)));
  }
  return index;
}

/** The next space-ended token from `at`: its end, or -1. */
function tokenEnd(text: string, at: number, max = 256): number {
  const end = text.indexOf(' ', at);
  return end <= at || end - at > max ? -1 : end;
}

const TIMER_NAMES_HTTP = ['time_request_ms', 'time_queue_ms', 'time_connect_ms', 'time_response_ms', 'time_total_ms'];
const TIMER_NAMES_TCP = ['time_queue_ms', 'time_connect_ms', 'time_total_ms'];
const CONNECTION_NAMES = ['actconn', 'feconn', 'beconn', 'srv_conn', 'retries'];

/**
 * HAProxy's default `option httplog` and `option tcplog` lines, as written to a log server (the
 * syslog header read by the caller) or to stdout:
 * `10.0.1.2:33317 [06/Feb/2009:12:14:14.655] http-in static/srv1 10/0/30/69/109 200 2750 - - ---- 1/1/1/1/0 0/0 "GET /index.html HTTP/1.1"`
 * and `10.0.1.2:33313 [06/Feb/2009:12:12:51.443] fnt bck/srv1 0/0/5007 212 -- 0/0/0/0/3 0/0`.
 * The accept time is local with no zone, so not used. A timer of -1 (the step never happened) stays -1.
 */
export function parseHaproxy(text: string): ParsedLine | null {
  const clientEnd = tokenEnd(text, 0);
  if (clientEnd < 0 || text[clientEnd + 1] !== '[') return null;
  const portStart = text.lastIndexOf(':', clientEnd);
  if (portStart < 1 || !digitsAt(text, portStart + 1, 1)) return null;
  // [06/Feb/2009:12:14:14.655]
  const t = clientEnd + 2;
  if (!digitsAt(text, t, 2) || text[t + 2] !== '/' || MONTHS[text.slice(t + 3, t + 6)] === undefined || text[t + 6] !== '/' || !digitsAt(text, t + 7, 4) || text[t + 11] !== ':') return null;
  const timeEnd = text.indexOf('] ', t + 12);
  if (timeEnd < 0 || timeEnd - t > 24) return null;
  let index = timeEnd + 2;
  const frontendEnd = tokenEnd(text, index);
  if (frontendEnd < 0) return null;
  const frontend = text.slice(index, frontendEnd);
  index = frontendEnd + 1;
  const serverEnd = tokenEnd(text, index);
  if (serverEnd < 0) return null;
  const slash = text.indexOf('/', index);
  if (slash < 0 || slash > serverEnd) return null;
  index = serverEnd + 1;
  // Five timers for HTTP (TR/Tw/Tc/Tr/Ta), three for TCP (Tw/Tc/Tt).
  const timers: number[] = [];
  let timersEnd = slashNumbers(text, index, 5, timers);
  const http = timersEnd > 0 && text[timersEnd] === ' ';
  if (!http) {
    timers.length = 0;
    timersEnd = slashNumbers(text, index, 3, timers);
    if (timersEnd < 0 || text[timersEnd] !== ' ') return null;
  }
  const fields: Record<string, unknown> = {};
  setField(fields, 'client_ip', text.slice(0, portStart));
  setField(fields, 'client_port', +text.slice(portStart + 1, clientEnd));
  setField(fields, 'frontend', frontend.endsWith('~') ? frontend.slice(0, -1) : frontend);
  setField(fields, 'backend', text.slice(frontendEnd + 1, slash));
  setField(fields, 'server', text.slice(slash + 1, serverEnd));
  const names = http ? TIMER_NAMES_HTTP : TIMER_NAMES_TCP;
  for (let at = 0; at < names.length; at++) setField(fields, names[at], timers[at]);
  index = timersEnd + 1;
  if (http) {
    if (!digitsAt(text, index, 3) || text[index + 3] !== ' ') return null;
    setField(fields, 'status', +text.slice(index, index + 3));
    index += 4;
  }
  const bytes: number[] = [];
  index = slashNumbers(text, index, 1, bytes);
  if (index < 0 || text[index] !== ' ') return null;
  setField(fields, 'bytes', bytes[0]);
  index++;
  if (http) {
    // The captured request and response cookies, "-" when none is captured.
    for (const name of ['request_cookie', 'response_cookie']) {
      const end = tokenEnd(text, index, 4096);
      if (end < 0) return null;
      const cookie = text.slice(index, end);
      if (cookie !== '-') setField(fields, name, cookie);
      index = end + 1;
    }
  }
  const stateEnd = tokenEnd(text, index, 4);
  if (stateEnd < 0) return null;
  setField(fields, 'termination_state', text.slice(index, stateEnd));
  index = stateEnd + 1;
  const connections: number[] = [];
  index = slashNumbers(text, index, 5, connections);
  if (index < 0 || text[index] !== ' ') return null;
  for (let at = 0; at < CONNECTION_NAMES.length; at++) setField(fields, CONNECTION_NAMES[at], connections[at]);
  const queues: number[] = [];
  index = slashNumbers(text, index + 1, 2, queues);
  if (index < 0) return null;
  setField(fields, 'srv_queue', queues[0]);
  setField(fields, 'backend_queue', queues[1]);
  if (http) {
    // Captured headers ({...} {...}), then the quoted request line.
    while (text[index] === ' ' && text[index + 1] === '{') {
      const close = text.indexOf('}', index + 2);
      if (close < 0) return null;
      index = close + 1;
    }
    if (text[index] === ' ' && text[index + 1] === '"') {
      const close = text.lastIndexOf('"');
      if (close > index + 1) {
        setRequestLine(fields, text.slice(index + 2, close));
      }
    }
  }
  return { logtype: 'haproxy', fields };
}
