import type { FastifyRequest } from 'fastify';
import { KEY_SHAPE } from '../lib/key-shape.js';

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

/**
 * The keys inside an Authorization header: Token or Bearer, or Basic with the key as user or as
 * password. The password wins when both are given, as the Ruby SDK sends "username:<key>"; a key
 * as user with something else as password counts too. Two different keys, one on each side, are
 * both returned, for the caller to refuse.
 */
function keysFromAuthorization(header: string | undefined): string[] {
  if (!header) return [];
  const space = header.indexOf(' ');
  if (space < 0) return [];
  const scheme = header.slice(0, space).toLowerCase();
  const value = header.slice(space + 1).trim();
  if (scheme === 'token' || scheme === 'bearer') return value ? [value] : [];
  if (scheme !== 'basic') return [];
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const user = first(colon < 0 ? decoded : decoded.slice(0, colon));
  const password = first(colon < 0 ? '' : decoded.slice(colon + 1));
  if (user && password && KEY_SHAPE.test(user)) return KEY_SHAPE.test(password) ? [password, user] : [user];
  const key = password ?? user;
  return key ? [key] : [];
}

/**
 * Every distinct key the request presents, from the Authorization header, the named header, the
 * named query parameter and any extra places (such as the Go SDK's body-level apikey).
 * The same key sent by two methods counts once; different keys are for the caller to refuse.
 */
export function presentedKeys(request: FastifyRequest, where: KeyLocations, extra: unknown[] = []): string[] {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const found = [
    ...keysFromAuthorization(first(request.headers.authorization)),
    ...all(request.headers[where.header]),
    ...all(query[where.query]),
    ...extra.map(first),
  ];
  return [...new Set(found.filter((key): key is string => key !== undefined))];
}
