import { type ParsedLine, MONTHS, digitsAt, levelWord, setField } from './parsed.js';

/**
 * nginx's error log: `2026/11/26 10:00:00 [error] 1234#1234: *5 message, client: 1.2.3.4,
 * server: localhost, request: "GET /x HTTP/1.1", host: "localhost"`. The time is the server's
 * local time with no zone, so it is not used; the level, process, thread, connection and the
 * trailing `name: value` context are.
 */
export function parseNginxError(text: string): ParsedLine | null {
  if (!digitsAt(text, 0, 4) || text[4] !== '/' || !digitsAt(text, 5, 2) || text[7] !== '/' || !digitsAt(text, 8, 2) || text[10] !== ' ') return null;
  if (!digitsAt(text, 11, 2) || text[13] !== ':' || !digitsAt(text, 14, 2) || text[16] !== ':' || !digitsAt(text, 17, 2) || text.slice(19, 21) !== ' [') return null;
  const levelEnd = text.indexOf('] ', 21);
  if (levelEnd < 0 || levelEnd > 32) return null;
  const level = levelWord(text.slice(21, levelEnd));
  if (level === undefined) return null;
  const fields: Record<string, unknown> = {};
  let index = levelEnd + 2;
  // 1234#5678: the worker's process and thread
  let hash = index;
  while (digitsAt(text, hash, 1)) hash++;
  if (hash > index && text[hash] === '#') {
    let colon = hash + 1;
    while (digitsAt(text, colon, 1)) colon++;
    if (text[colon] === ':' && colon > hash + 1) {
      setField(fields, 'pid', +text.slice(index, hash));
      setField(fields, 'tid', +text.slice(hash + 1, colon));
      index = colon + 1;
      if (text[index] === ' ') index++;
    }
  }
  if (text[index] === '*') {
    let end = index + 1;
    while (digitsAt(text, end, 1)) end++;
    if (end > index + 1) {
      setField(fields, 'connection', +text.slice(index + 1, end));
      index = end + 1;
    }
  }
  const firstLineEnd = text.indexOf('\n', index);
  let message = text.slice(index, firstLineEnd < 0 ? text.length : firstLineEnd);
  // The context nginx appends (client, server, request, upstream, host, referrer), read from the end.
  for (const name of ['referrer', 'host', 'upstream', 'request', 'server', 'client']) {
    const marker = `, ${name}: `;
    const at = message.lastIndexOf(marker);
    if (at < 0) continue;
    let value = message.slice(at + marker.length);
    if (value.length > 1 && value[0] === '"' && value[value.length - 1] === '"') value = value.slice(1, -1);
    if (name === 'request') {
      const parts = value.split(' ');
      if (parts.length === 3) {
        setField(fields, 'method', parts[0]);
        setField(fields, 'path', parts[1]);
      }
    }
    if (value) setField(fields, name === 'host' ? 'http_host' : name, value);
    message = message.slice(0, at);
  }
  fields.message = message;
  return { logtype: 'nginx', fields, level };
}

/**
 * Apache's error log: 2.4's `[Thu Nov 26 10:00:00.123456 2026] [core:error] [pid 1234:tid 5678]
 * [client 1.2.3.4:5678] AH00126: message` and 2.2's `[Thu Nov 26 10:00:00 2026] [error] [client
 * 1.2.3.4] message`. Local time with no zone, so not used.
 */
export function parseApacheError(text: string): ParsedLine | null {
  // "[Www Mmm dd hh:mm:ss"
  if (text[0] !== '[' || text[4] !== ' ' || text[8] !== ' ' || MONTHS[text.slice(5, 8)] === undefined) return null;
  const timeEnd = text.indexOf('] [', 9);
  if (timeEnd < 0 || timeEnd > 40) return null;
  let index = timeEnd + 3;
  const levelEnd = text.indexOf(']', index);
  if (levelEnd < 0 || levelEnd - index > 40) return null;
  const moduleAndLevel = text.slice(index, levelEnd);
  const colon = moduleAndLevel.indexOf(':');
  const levelText = colon < 0 ? moduleAndLevel : moduleAndLevel.slice(colon + 1);
  // Apache writes trace1..trace8 for its trace levels.
  const level = levelWord(levelText.startsWith('trace') ? 'trace' : levelText);
  if (level === undefined) return null;
  const fields: Record<string, unknown> = {};
  if (colon > 0) setField(fields, 'module', moduleAndLevel.slice(0, colon));
  index = levelEnd + 1;
  // Bracketed context: [pid N:tid M], [client addr:port], [remote ...]
  while (text[index] === ' ' && text[index + 1] === '[') {
    const end = text.indexOf(']', index + 2);
    if (end < 0 || end - index > 300) break;
    const part = text.slice(index + 2, end);
    const space = part.indexOf(' ');
    const name = space < 0 ? part : part.slice(0, space);
    const value = space < 0 ? '' : part.slice(space + 1);
    if (name === 'pid') {
      const [pid, tid] = value.split(':tid ');
      if (/^\d+$/.test(pid)) setField(fields, 'pid', +pid);
      if (tid && /^\d+$/.test(tid)) setField(fields, 'tid', +tid);
    } else if (name === 'client' || name === 'remote') {
      setField(fields, name, value);
    } else break;
    index = end + 1;
  }
  if (text[index] === ' ') index++;
  const firstLineEnd = text.indexOf('\n', index);
  let message = text.slice(index, firstLineEnd < 0 ? text.length : firstLineEnd);
  // AH00126: Apache's message code, first or after an errno such as "(2)No such file or directory: ".
  const code = message.indexOf('AH');
  if (code >= 0 && code < 80 && digitsAt(message, code + 2, 5) && message[code + 7] === ':') setField(fields, 'error_code', message.slice(code, code + 7));
  // Apache appends the request's referrer: ", referer: http://...".
  const referrer = message.lastIndexOf(', referer: ');
  if (referrer > 0) {
    setField(fields, 'referrer', message.slice(referrer + 11));
    message = message.slice(0, referrer);
  }
  fields.message = message;
  return { logtype: 'apache', fields, level };
}
