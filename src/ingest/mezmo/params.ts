import net from 'node:net';
import { BadInputError, MissingHostnameError } from '../../lib/ingest-errors.js';
import type { SourceParams } from '../normalise.js';
import { toMillis } from '../timestamps.js';
import { LIMITS } from '../../wire/limits.js';

const MAC = /^([0-9A-Fa-f]{2}[:-]){5}([0-9A-Fa-f]{2})$/;

/** Query values arrive as a string, an array (repeated key) or not at all. */
function values(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.flatMap(values);
  if (typeof value === 'string' || typeof value === 'number') return [String(value).toWellFormed()];
  throw new BadInputError('a parameter is neither text nor a number');
}

function single(value: unknown): string | undefined {
  const all = values(value);
  if (all.length > 1 && new Set(all).size > 1) throw new BadInputError('a parameter is given twice with different values');
  return all[0];
}

export function parseTags(...sources: unknown[]): string[] {
  const tags = new Set<string>();
  for (const source of sources) {
    for (const text of values(source)) {
      for (const tag of text.split(',')) {
        const trimmed = tag.trim();
        if (!trimmed) continue;
        if (trimmed.length > LIMITS.tag) throw new BadInputError(`a tag is longer than ${LIMITS.tag} characters`);
        tags.add(trimmed);
        if (tags.size > LIMITS.tags) throw new BadInputError(`more than ${LIMITS.tags} tags`);
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
  if (!hostname) throw new MissingHostnameError();
  if (hostname.length > LIMITS.hostname) throw new BadInputError(`the hostname is longer than ${LIMITS.hostname} characters`);

  const ip = pick('ip')?.trim() ?? '';
  if (ip && net.isIP(ip) === 0) throw new BadInputError('ip is not an IP address');
  const mac = pick('mac')?.trim() ?? '';
  if (mac && !MAC.test(mac)) throw new BadInputError('mac is not a MAC address');

  const nowText = pick('now');
  let nowMs: number | null = null;
  if (nowText !== undefined && nowText.trim() !== '') {
    nowMs = toMillis(nowText);
    if (nowMs === null) throw new BadInputError('now is not a time');
    // Fluent Bit sends `now` in whole seconds: the client's clock read somewhere in that second,
    // so its middle is the best estimate (off by at most half a second, not up to a whole one).
    if (/^\s*\d{1,10}\s*$/.test(nowText)) nowMs += 500;
  }
  return { hostname, ip, mac, tags: parseTags(query.tags, body?.tags), nowMs };
}
