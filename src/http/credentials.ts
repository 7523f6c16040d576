import type { FastifyRequest } from 'fastify';

/** Where a request may carry an API key. Header names are matched case-insensitively by Node. */
export interface KeyLocations {
  header: string;
  query: string;
}

function first(value: unknown): string | undefined {
  if (Array.isArray(value)) return first(value[0]);
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

/**
 * Every key in a header or query value. A parameter may be repeated, and Node joins a repeated
 * header with ", "; keys never contain commas, so each part is a key.
 */
function all(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(all);
  if (typeof value !== 'string') return [];
  return value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}

/** The key inside an Authorization header: Basic (user, or password when one is given), Token or Bearer. */
function keyFromAuthorization(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const space = header.indexOf(' ');
  if (space < 0) return undefined;
  const scheme = header.slice(0, space).toLowerCase();
  const value = header.slice(space + 1).trim();
  if (scheme === 'token' || scheme === 'bearer') return value || undefined;
  if (scheme !== 'basic') return undefined;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const user = colon < 0 ? decoded : decoded.slice(0, colon);
  const password = colon < 0 ? '' : decoded.slice(colon + 1);
  // The Ruby SDK sends "username:<key>"; everyone else sends "<key>:".
  return first(password) ?? first(user);
}

/**
 * Every distinct key the request presents, from the Authorization header, the named header, the
 * named query parameter and any extra places (such as the Go SDK's body-level apikey).
 * The same key sent by two methods counts once; different keys are for the caller to refuse.
 */
export function presentedKeys(request: FastifyRequest, where: KeyLocations, extra: unknown[] = []): string[] {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const found = [
    keyFromAuthorization(first(request.headers.authorization)),
    ...all(request.headers[where.header]),
    ...all(query[where.query]),
    ...extra.map(first),
  ];
  return [...new Set(found.filter((key): key is string => key !== undefined))];
}
