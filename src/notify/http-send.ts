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
        response.resume();
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          const ok = status >= 200 && status < 300;
          resolve({ ok, retry: !ok && (status >= 500 || status === 429), detail: `HTTP ${status}`, status });
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
