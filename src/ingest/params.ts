import net from 'node:net';
import { errors } from '../http/errors.js';
import { toMillis } from './timestamps.js';

/** What a request says about its source, from the query string or (Go SDK) the body. */
export interface SourceParams {
  hostname: string;
  ip: string;
  mac: string;
  tags: string[];
  /** The client's clock when it sent the request, in ms, if it said. */
  nowMs: number | null;
}

export const LIMITS = {
  hostname: 256,
  app: 512,
  level: 80,
  tag: 80,
  lineBytes: 16 * 1024,
  metaBytes: 32 * 1024,
  bodyBytes: 10 * 1024 * 1024,
} as const;

const MAC = /^([0-9A-Fa-f]{2}[:-]){5}([0-9A-Fa-f]{2})$/;

/** Query values arrive as a string, an array (repeated key) or not at all. */
function values(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.flatMap(values);
  if (typeof value === 'string' || typeof value === 'number') return [String(value).toWellFormed()];
  throw errors.badRequest();
}

function single(value: unknown): string | undefined {
  const all = values(value);
  if (all.length > 1 && new Set(all).size > 1) throw errors.badRequest();
  return all[0];
}

export function parseTags(...sources: unknown[]): string[] {
  const tags = new Set<string>();
  for (const source of sources) {
    for (const text of values(source)) {
      for (const tag of text.split(',')) {
        const trimmed = tag.trim();
        if (!trimmed) continue;
        if (trimmed.length > LIMITS.tag) throw errors.badRequest();
        tags.add(trimmed);
      }
    }
  }
  return [...tags];
}

/**
 * Reads hostname, ip, mac, tags and now. Query parameters win over body-level ones. Empty `ip=`,
 * `mac=` and `tags=` mean "not given", as the Node SDKs and Fluent Bit send them.
 */
export function parseSourceParams(query: Record<string, unknown>, body: Record<string, unknown> | undefined): SourceParams {
  const pick = (name: string) => single(query[name]) ?? single(body?.[name]);
  const hostname = pick('hostname')?.trim();
  if (!hostname) throw errors.missingHostname();
  if (hostname.length > LIMITS.hostname) throw errors.badRequest();

  const ip = pick('ip')?.trim() ?? '';
  if (ip && net.isIP(ip) === 0) throw errors.badRequest();
  const mac = pick('mac')?.trim() ?? '';
  if (mac && !MAC.test(mac)) throw errors.badRequest();

  const nowText = pick('now');
  let nowMs: number | null = null;
  if (nowText !== undefined && nowText.trim() !== '') {
    nowMs = toMillis(nowText);
    if (nowMs === null) throw errors.badRequest();
    // Fluent Bit sends `now` in whole seconds: the client's clock read somewhere in that second,
    // so its middle is the best estimate (off by at most half a second, not up to a whole one).
    if (/^\s*\d{1,10}\s*$/.test(nowText)) nowMs += 500;
  }
  return { hostname, ip, mac, tags: parseTags(query.tags, body?.tags), nowMs };
}
