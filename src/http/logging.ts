import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Writable } from 'node:stream';

/**
 * What the server's own logs may hold: never a key, a session token or a line's content
 * (docs/security.md). Logs are JSON (pino, through fastify), one object a line, and every line
 * written while serving a request carries its `reqId`.
 */

/** An incoming x-request-id is kept when it looks like an id; anything else gets a fresh one. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's id: the caller's `x-request-id` (from a proxy, say) when safe, else a random UUID. */
export function requestId(raw: { headers: IncomingHttpHeaders }): string {
  const given = raw.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** Query parameters that carry credentials: ingestion and service keys, the metrics key, signed links. */
const SECRET_PARAMETERS = ['apikey', 'servicekey', 'key', 'signature', 'token'];
const SECRET_IN_URL = new RegExp(`([?&;](?:${SECRET_PARAMETERS.join('|')})=)[^&;#\\s"'\`]*`, 'gi');
const SECRET_HEADERS = ['authorization', 'apikey', 'servicekey', 'cookie', 'x-csrf-token', 'set-cookie'];

/** A URL, or text quoting one, with the values of credential parameters replaced. */
export const withoutSecrets = (text: string): string => text.replace(SECRET_IN_URL, '$1[redacted]');

/**
 * Pino redaction paths: anything that logs headers, a query or a body, on its own or under req/res
 * (fastify's own serializers log none of them; this is for code that would).
 */
const REDACT_PATHS = [
  ...['headers', 'req.headers', 'res.headers', 'request.headers'].flatMap((at) => SECRET_HEADERS.map((name) => `${at}["${name}"]`)),
  ...['query', 'req.query', 'request.query'].flatMap((at) => SECRET_PARAMETERS.map((name) => `${at}["${name}"]`)),
  'body',
  'req.body',
  'request.body',
];

/**
 * Engine messages quote what they could not handle: an insert's rows (the lines themselves) and
 * query parameter values (search words). Only their code and name are logged.
 */
const ENGINE_MESSAGE = /^Code: (\d+)\. DB::Exception:/;

function safeMessage(error: Error): string {
  const message = String(error.message ?? '');
  const engine = ENGINE_MESSAGE.exec(message);
  if (engine) {
    const name = /\(([A-Z][A-Z0-9_]*)\)\s*$/.exec(message)?.[1] ?? 'UNKNOWN';
    return `Code: ${engine[1]}. DB::Exception (${name}); the engine's message is left out of the log, as it may quote stored lines or query values`;
  }
  // V8 quotes the start of the text it could not parse: a body, a line.
  if (error instanceof SyntaxError && /JSON/.test(message)) return 'not valid JSON (the text is left out of the log)';
  return withoutSecrets(message);
}

/**
 * Errors as logged: type, message, code, status and stack frames only. Pino's default serializer
 * also copies every enumerable property, which can be a request's raw bytes (Node's client errors
 * carry `rawPacket`, headers and all), an SMTP reply or an error body.
 */
interface SerializedError {
  [key: string]: unknown;
  type: string;
  message: string;
  stack: string;
}

export function serializeError(error: unknown, depth = 0): SerializedError {
  if (!(error instanceof Error)) return { type: typeof error, message: withoutSecrets(String(error)), stack: '' };
  const message = safeMessage(error);
  const frames = (error.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line));
  const { code, statusCode } = error as Error & { code?: unknown; statusCode?: unknown };
  return {
    type: error.constructor?.name ?? error.name,
    message,
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    ...(typeof statusCode === 'number' ? { statusCode } : {}),
    stack: [`${error.name}: ${message}`, ...frames].join('\n'),
    ...(error.cause !== undefined && depth < 5 ? { cause: serializeError(error.cause, depth + 1) } : {}),
  };
}

interface LoggedRequest {
  method: string;
  url: string;
  routeOptions?: { url?: string };
  hostname?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/**
 * A URL as logged: its path only. The query string may carry a key, and a search (`query=`) may
 * quote a line.
 */
const pathOf = (url: unknown): string => String(url ?? '').split('?')[0];

/** A request as logged: method, path, route and peer; no query string, headers or body. */
function serializeRequest(request: LoggedRequest) {
  return {
    method: request.method,
    url: pathOf(request.url),
    route: request.routeOptions?.url,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** The logger options fastify builds its pino logger from. `stream` replaces stdout (tests). */
export function loggerOptions(level: string, stream?: Writable) {
  return {
    level,
    ...(stream ? { stream } : {}),
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    // `path`: the websocket plugin logs a refused upgrade's URL under it.
    serializers: { err: serializeError, error: serializeError, req: serializeRequest, path: pathOf, url: pathOf },
    // Messages and top-level strings may quote a URL (fastify's "Reply was already sent ... in the
    // <url> route", the websocket plugin's { path: <url> }).
    hooks: {
      logMethod(this: unknown, args: unknown[], method: (...args: unknown[]) => void) {
        const scrubbed = args.map((arg) => (typeof arg === 'string' ? withoutSecrets(arg) : arg));
        // Without a message, pino would log the error's own message raw: give it the safe one.
        const [first] = scrubbed;
        const error = first instanceof Error ? first : (first as { err?: unknown } | null)?.err;
        if (error instanceof Error && typeof scrubbed[1] !== 'string') scrubbed.splice(1, 0, safeMessage(error));
        method.apply(this, scrubbed);
      },
    },
    formatters: {
      log(object: Record<string, unknown>) {
        for (const [name, value] of Object.entries(object)) if (typeof value === 'string') object[name] = withoutSecrets(value);
        return object;
      },
    },
  };
}
