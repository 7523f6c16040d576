import { type ParsedLine, isoTimestampAt, levelWord, numberOrText, setField } from './parsed.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Ruby on Rails' request lines, after any tags (`[request-id] `) and Ruby Logger's prefix
 * (`I, [2026-11-28T10:00:00.123456 #1234]  INFO -- : `):
 * `Started GET "/" for 127.0.0.1 at 2026-11-28 10:00:00 +0000`,
 * `Processing by HomeController#index as HTML`,
 * `Completed 200 OK in 5ms (Views: 3.2ms | ActiveRecord: 0.5ms | Allocations: 1234)`.
 * A first tag that is a UUID is Rails' default `log_tags = [:request_id]`, kept as `request_id`.
 */
export function parseRails(text: string): ParsedLine | null {
  let index = 0;
  let level: string | undefined;
  const fields: Record<string, unknown> = {};
  // Ruby Logger: "I, [2026-11-28T10:00:00.123456 #1234]  INFO -- : "
  if (text[1] === ',' && text[2] === ' ' && text[3] === '[') {
    const close = text.indexOf('] ', 4);
    const dash = text.indexOf(' -- ', close);
    const colon = text.indexOf(': ', dash);
    if (close < 0 || close > 64 || dash < 0 || dash - close > 12 || colon < 0 || colon - dash > 64) return null;
    const pid = text.lastIndexOf(' #', close);
    if (pid > 4) setField(fields, 'pid', numberOrText(text.slice(pid + 2, close)));
    level = levelWord(text.slice(close + 1, dash).trim());
    index = colon + 2;
  }
  let tags = 0;
  while (text[index] === '[') {
    const close = text.indexOf('] ', index);
    if (close < 0 || close - index > 128) return null;
    if (tags++ === 0 && UUID.test(text.slice(index + 1, close))) setField(fields, 'request_id', text.slice(index + 1, close));
    index = close + 2;
  }
  // The words are checked before the line is cut at its end, so a line of some other kind costs a few comparisons.
  const kind = text.startsWith('Started ', index) ? 'S' : text.startsWith('Processing by ', index) ? 'P' : text.startsWith('Completed ', index) ? 'C' : '';
  if (!kind) return null;
  const newline = text.indexOf('\n', index);
  const message = text.slice(index, newline < 0 ? text.length : newline);
  let ts: number | undefined;
  if (kind === 'S') {
    const match = /^Started ([A-Z]+) "([^"]*)" for (\S+) at (.+)$/.exec(message);
    if (!match) return null;
    setField(fields, 'method', match[1]);
    setField(fields, 'path', match[2]);
    setField(fields, 'remote_addr', match[3]);
    // "2026-11-28 10:00:00 +0000"
    const time = match[4].replace(/ ([+-]\d{4})$/, '$1');
    const parsed = isoTimestampAt(time, 0);
    if (parsed && parsed.end === time.length) ts = parsed.ms;
  } else if (kind === 'P') {
    const match = /^Processing by (\S+)#(\S+) as (\S+)$/.exec(message);
    if (!match) return null;
    setField(fields, 'controller', match[1]);
    setField(fields, 'action', match[2]);
    setField(fields, 'format', match[3]);
  } else {
    const match = /^Completed (\d{3}) (.*?) in (\d+(?:\.\d+)?)ms(?: \((.*)\))?$/.exec(message);
    if (!match) return null;
    setField(fields, 'status', +match[1]);
    if (match[2]) setField(fields, 'status_text', match[2]);
    setField(fields, 'duration_ms', +match[3]);
    // "Views: 3.2ms | ActiveRecord: 0.5ms (2 queries, 0 cached) | GC: 0.0ms | Allocations: 1234"
    for (const part of (match[4] ?? '').split(' | ')) {
      const found = /^(\w+): (\d+(?:\.\d+)?)(ms)?/.exec(part);
      if (!found) continue;
      setField(fields, found[3] ? `${found[1].toLowerCase()}_ms` : found[1].toLowerCase(), +found[2]);
    }
  }
  fields.message = message;
  return { logtype: 'rails', fields, level, ts };
}
