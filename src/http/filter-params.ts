import { errors } from './errors.js';
import { LIMITS } from '../wire/limits.js';
import type { AccessScope } from '../query/access-scope.js';
import { compileQuery } from '../query/compile.js';
import type { LineFilter } from '../store/log-store.js';

/** Query-string parameters as fastify hands them over: a string, an array when repeated, or absent. */
export type QueryParams = Record<string, unknown>;

export function oneParam(query: QueryParams, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw errors.invalidParameter(`Parameter "${name}" was given more than once.`);
  return String(value);
}

/** The longest value each list filter can match: longer ones are cut or refused at ingest. */
const LIST_LIMITS = { hosts: LIMITS.hostname, apps: LIMITS.app, levels: LIMITS.level, tags: LIMITS.tag } as const;

/**
 * A comma-separated filter list. A value no stored line can have (longer than ingest keeps) is a
 * mistake, such as a missing comma or a pasted line, so it is refused rather than matching nothing.
 */
export function listParam(query: QueryParams, name: keyof typeof LIST_LIMITS): string[] | undefined {
  const value = oneParam(query, name);
  if (value === undefined) return undefined;
  const items = value.split(',').map((item) => item.trim()).filter(Boolean);
  const tooLong = items.find((item) => item.length > LIST_LIMITS[name]);
  if (tooLong !== undefined) {
    throw errors.invalidParameter(`Parameter "${name}" has a value longer than ${LIST_LIMITS[name]} characters, which no line can have: "${tooLong.slice(0, 40)}…".`);
  }
  return items.length ? items : undefined;
}

/** One of a fixed set of words, or the default when absent; anything else is refused, naming the parameter. */
export function choiceParam<T extends string>(query: QueryParams, name: string, choices: readonly T[], fallback: T): T {
  const value = oneParam(query, name);
  if (value === undefined || value.trim() === '') return fallback;
  const chosen = choices.find((choice) => choice === value.trim().toLowerCase());
  if (chosen === undefined) throw errors.invalidParameter(`Parameter "${name}" must be ${choices.map((choice) => `"${choice}"`).join(' or ')}, got "${value}".`);
  return chosen;
}

/** from/to: Unix time in seconds or milliseconds, told apart by magnitude; `fallback` when absent, if given. */
function timeParam(query: QueryParams, name: string, fallback?: number): number {
  const value = oneParam(query, name);
  if (value === undefined || value.trim() === '') {
    if (fallback !== undefined) return fallback;
    throw errors.invalidParameter(`Missing required parameter "${name}" (Unix time in seconds or milliseconds).`);
  }
  if (!/^\d+$/.test(value.trim())) {
    throw errors.invalidParameter(`Parameter "${name}" must be a Unix time in seconds or milliseconds, got "${value}".`);
  }
  const n = Number(value);
  const ms = n < 1e11 ? n * 1000 : n;
  if (ms > MAX_TIME_MS) throw errors.invalidParameter(`Parameter "${name}" is out of range: the latest time is the end of year 9999.`);
  return ms;
}

/** The end of year 9999 in Unix ms: later times are typos, and would not survive the engine's 64-bit binding. */
export const MAX_TIME_MS = 253_402_300_799_999;

/**
 * The line selection every read endpoint shares: from and to (required), hosts, apps, levels and
 * tags (comma-separated), and query (alias q) in the search language, held inside the reader's
 * access scope. Unknown parameters are ignored, as clients add their own.
 */
export function parseLineFilter(query: QueryParams, scope: AccessScope): Omit<LineFilter, 'account'> {
  return {
    ...parseTimeRange(query),
    hosts: listParam(query, 'hosts'),
    apps: listParam(query, 'apps'),
    levels: listParam(query, 'levels')?.map((level) => level.toUpperCase()),
    tags: listParam(query, 'tags'),
    condition: compileQuery(oneParam(query, 'query') ?? oneParam(query, 'q') ?? '', scope),
  };
}

/**
 * from and to, as every read endpoint takes them; with `defaults`, either may be left out. A `to`
 * given in whole seconds covers the whole of its last second.
 */
export function parseTimeRange(query: QueryParams, defaults?: { fromMs: number; toMs: number }): { fromMs: number; toMs: number } {
  const fromMs = timeParam(query, 'from', defaults?.fromMs);
  const to = oneParam(query, 'to');
  let toMs = timeParam(query, 'to', defaults?.toMs);
  if (fromMs > toMs) throw errors.reversedTimeRange();
  if (to !== undefined && to.trim() !== '' && Number(to) < 1e11) toMs += 999;
  return { fromMs, toMs };
}

/** A whole-number parameter within bounds, or the default when absent. */
export function countParam(query: QueryParams, name: string, fallback: number, max: number): number {
  const text = oneParam(query, name);
  if (text === undefined || text.trim() === '') return fallback;
  if (!/^\d+$/.test(text.trim()) || Number(text) < 1) {
    throw errors.invalidParameter(`Parameter "${name}" must be a positive whole number, got "${text}".`);
  }
  return Math.min(Number(text), max);
}
