import { createHash } from 'node:crypto';
import { errors } from '../http/errors.js';
import { MAX_TIME_MS } from '../http/filter-params.js';
import type { LinePosition } from '../store/log-store.js';

/**
 * v2 export's pagination_id: an opaque token holding the last line returned and a fingerprint of
 * the organisation and the request's parameters. Parameters are sorted before hashing, so their
 * order does not matter, and a token presented by another organisation or with different
 * parameters is refused rather than silently misapplied.
 */
export function fingerprint(account: string, query: Record<string, unknown>): string {
  const entries = Object.entries({ ...query, '': account })
    .filter(([name]) => name !== 'pagination_id')
    .map(([name, value]) => [name, Array.isArray(value) ? value.map(String) : String(value)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256').update(JSON.stringify(entries)).digest('base64url').slice(0, 16);
}

export function encodeCursor(params: string, position: LinePosition): string {
  return Buffer.from(JSON.stringify({ p: params, t: position.ts, i: position.id })).toString('base64url');
}

export function decodeCursor(token: string, params: string): LinePosition {
  let decoded: { p?: unknown; t?: unknown; i?: unknown };
  try {
    decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw errors.invalidParameter('Parameter "pagination_id" is not a token this server issued.');
  }
  const valid =
    Number.isSafeInteger(decoded?.t) &&
    (decoded.t as number) >= 0 &&
    (decoded.t as number) <= MAX_TIME_MS &&
    typeof decoded.i === 'string' &&
    /^\d{1,19}$/.test(decoded.i);
  if (!valid) {
    throw errors.invalidParameter('Parameter "pagination_id" is not a token this server issued.');
  }
  if (decoded.p !== params) {
    throw errors.invalidParameter(
      'Parameter "pagination_id" belongs to another request: repeat the same from, to, size, prefer and filters, with a key of the same organisation.',
    );
  }
  return { ts: decoded.t as number, id: decoded.i as string };
}
