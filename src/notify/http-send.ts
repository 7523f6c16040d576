import http from 'node:http';
import https from 'node:https';
import { INTERNAL_ADDRESS, internalAddressRefusal, internalLiteral, publicOnlyAgents } from '../lib/private-address.js';

export interface HttpRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

/** How a delivery attempt ended: retry on network errors, 5xx and 429; give up on the rest. */
export interface SendResult {
  ok: boolean;
  retry: boolean;
  detail: string;
  /** The receiver's answer code: the HTTP status, or the SMTP reply code; absent when none came. */
  status?: number;
  /** How long the receiver asked to be left alone before the next try (its Retry-After). */
  retryAfterMs?: number;
  /** The start of the receiver's answer body, for the integrations that explain a refusal in it (Slack). */
  answer?: string;
}

/** Enough of an answer body for a reason such as Slack's `channel_not_found`, not a whole error page. */
const MAX_ANSWER_CHARS = 300;

/** Retry-After in seconds or as an HTTP date (RFC 9110 §10.2.3), in milliseconds from `now`. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const TIMEOUT_MS = 10_000;

/**
 * Sends one request and reads the status. Internal addresses are refused unless allowed: a literal
 * one here, one a name resolves to when the socket connects. Redirects are not followed: a 3xx
 * is an answer like any other, so a public endpoint cannot bounce the request inside.
 */
export function httpSend(request: HttpRequest, allowInternal: boolean): Promise<SendResult> {
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return resolve({ ok: false, retry: false, detail: `not a URL: ${request.url}` });
    }
    const client = url.protocol === 'https:' ? https : url.protocol === 'http:' ? http : null;
    if (!client) return resolve({ ok: false, retry: false, detail: `unsupported scheme ${url.protocol}` });
    const literal = allowInternal ? undefined : internalLiteral(url);
    if (literal) return resolve({ ok: false, retry: false, detail: internalAddressRefusal(literal, literal) });
    const headers: Record<string, string | number> = { 'user-agent': 'Logstead', ...request.headers };
    if (request.body !== undefined) headers['content-length'] = Buffer.byteLength(request.body);
    let outgoing: http.ClientRequest;
    try {
      const options = { method: request.method.toUpperCase(), headers, timeout: TIMEOUT_MS, ...(allowInternal ? {} : { agent: publicOnlyAgents[url.protocol as 'http:' | 'https:'] }) };
      outgoing = client.request(url, options, (response) => {
        let answer = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (answer.length < MAX_ANSWER_CHARS) answer += chunk;
        });
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          const ok = status >= 200 && status < 300;
          const wait = status === 429 || status === 503 ? retryAfterMs(response.headers['retry-after']) : undefined;
          resolve({
            ok,
            retry: !ok && (status >= 500 || status === 429),
            detail: `HTTP ${status}`,
            status,
            ...(wait === undefined ? {} : { retryAfterMs: wait }),
            ...(answer && !ok ? { answer: answer.slice(0, MAX_ANSWER_CHARS) } : {}),
          });
        });
      });
    } catch (error) {
      // Refused before anything was sent (an invalid header, say): trying again cannot help.
      return resolve({ ok: false, retry: false, detail: (error as Error).message });
    }
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
    // A refused address stays refused: retrying cannot help.
    outgoing.on('error', (error: NodeJS.ErrnoException) => resolve({ ok: false, retry: error.code !== INTERNAL_ADDRESS, detail: error.message }));
    outgoing.end(request.body);
  });
}
