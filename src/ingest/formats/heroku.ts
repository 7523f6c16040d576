import { type ParsedLine, numberOrText, setField } from './parsed.js';

/** Heroku's `at=` onto the levels lineLevel stores. */
const AT_LEVELS: Record<string, string> = { info: 'INFO', warning: 'WARN', error: 'ERROR' };

/** `12ms` as 12, or undefined. */
function milliseconds(value: unknown): number | undefined {
  if (typeof value !== 'string' || !value.endsWith('ms')) return undefined;
  const number = numberOrText(value.slice(0, -2));
  return typeof number === 'number' ? number : undefined;
}

/**
 * Heroku's router lines, logfmt already read by parseLogfmt: `at=info method=GET path="/"
 * host=myapp.herokuapp.com request_id=... fwd="1.2.3.4" dyno=web.1 connect=1ms service=5ms
 * status=200 bytes=1548 protocol=https` (and `at=error code=H12 desc="Request timeout" ...`).
 * `connect` and `service` become `connect_ms` and `service_ms` numbers; `host`, a built-in name,
 * becomes `http_host`; `at` sets the level. Returns null for other logfmt lines.
 */
export function asHerokuRouter(parsed: ParsedLine, text: string): ParsedLine | null {
  const fields = parsed.fields!;
  if (typeof fields.at !== 'string' || fields.dyno === undefined || fields._connect === undefined) return null;
  const connect = milliseconds(fields._connect);
  const service = milliseconds(fields._service);
  if (connect === undefined) return null;
  delete fields._connect;
  delete fields._service;
  setField(fields, 'connect_ms', connect);
  if (service !== undefined) setField(fields, 'service_ms', service);
  const host = / host=("[^"]*"|\S+)/.exec(text);
  if (host) setField(fields, 'http_host', host[1].replace(/^"|"$/g, ''));
  return { ...parsed, logtype: 'heroku', level: AT_LEVELS[fields.at] ?? parsed.level };
}
