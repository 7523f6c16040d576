import net from 'node:net';
import { BadInputError, MissingHostnameError } from '../errors.js';
import { toMillis } from '../timestamps.js';

/** What a request says about its source, from the query string or (Go SDK) the body. */
export interface SourceParams {
  hostname: string;
  ip: string;
  mac: string;
  tags: string[];
  /** The client's clock when it sent the request, in ms, if it said. */
  nowMs: number | null;
}

/**
 * Every client-supplied value is bounded (the Limits table in docs/security.md). Mezmo's own
 * limits (compat reference §2.7) where it documents one; the others are Logstead's. Per-line
 * values are cut to their limit, as Mezmo cuts lines, so one odd line never costs the batch;
 * request parameters (hostname, tags) come from the sender's configuration, not its logs, and are
 * refused with 400 so the misconfiguration shows at once.
 */
export const LIMITS = {
  /** Characters. Refused as a parameter; cut as a line's `host`/`hostname`. */
  hostname: 256,
  app: 512,
  level: 80,
  /** Characters per tag; refused. */
  tag: 80,
  /** Distinct tags per request; refused. Every stored line carries them all. */
  tags: 32,
  /** Characters: a short label, like level and tag. */
  env: 80,
  /** Characters: a path, longer than any Kubernetes log path. */
  file: 1024,
  /** Characters of a string `pid`, `prival` or `containerid` (which are numbers or ids). */
  extraValue: 256,
  /** UTF-8 bytes of each of the `label` and `annotation` maps, as JSON. */
  extraMapBytes: 16 * 1024,
  lineBytes: 16 * 1024,
  metaBytes: 32 * 1024,
  bodyBytes: 10 * 1024 * 1024,
  /**
   * Characters of a request's rows as written to the store. Every row repeats the request's
   * hostname and tags, so 10 MB of tiny lines could otherwise become gigabytes in memory (a
   * realistic 10 MB body of 50-byte lines stores about 50 MB).
   */
  storedChars: 64 * 1024 * 1024,
} as const;

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
