import { errors } from '../http/errors.js';
import { compileQuery } from '../query/compile.js';
import type { LineFilter } from '../store/log-store.js';

/** Most lines one export (or one v2 page) returns. */
export const MAX_EXPORT_LINES = 10_000;

export interface ExportRequest {
  filter: Omit<LineFilter, 'account'>;
  size: number;
  prefer: 'head' | 'tail';
}

type Query = Record<string, unknown>;

function one(query: Query, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw errors.invalidParameter(`Parameter "${name}" was given more than once.`);
  return String(value);
}

function list(query: Query, name: string): string[] | undefined {
  const value = one(query, name);
  if (value === undefined) return undefined;
  const items = value.split(',').map((item) => item.trim()).filter(Boolean);
  return items.length ? items : undefined;
}

/** from/to: Unix time in seconds or milliseconds, told apart by magnitude. */
function time(query: Query, name: string): number {
  const value = one(query, name);
  if (value === undefined || value.trim() === '') throw errors.invalidParameter(`Missing required parameter "${name}" (Unix time in seconds or milliseconds).`);
  if (!/^\d+$/.test(value.trim())) throw errors.invalidParameter(`Parameter "${name}" must be a Unix time in seconds or milliseconds, got "${value}".`);
  const n = Number(value);
  return n < 1e11 ? n * 1000 : n;
}

/**
 * Reads the parameters shared by /v1/export and /v2/export. Unknown parameters are ignored, as
 * clients add their own (the legacy CLI sends `q` for `query`).
 */
export function parseExportRequest(query: Query): ExportRequest {
  const fromMs = time(query, 'from');
  let toMs = time(query, 'to');
  if (fromMs > toMs) throw errors.invalidParameter('Parameter "from" must not be later than "to".');
  // A `to` given in whole seconds covers the whole of its last second.
  if (Number(one(query, 'to')) < 1e11) toMs += 999;

  let size = MAX_EXPORT_LINES;
  const sizeText = one(query, 'size');
  if (sizeText !== undefined && sizeText.trim() !== '') {
    if (!/^\d+$/.test(sizeText.trim()) || Number(sizeText) < 1) {
      throw errors.invalidParameter(`Parameter "size" must be a positive whole number, got "${sizeText}".`);
    }
    size = Math.min(Number(sizeText), MAX_EXPORT_LINES);
  }

  const prefer = (one(query, 'prefer') ?? 'tail').toLowerCase();
  if (prefer !== 'head' && prefer !== 'tail') {
    throw errors.invalidParameter(`Parameter "prefer" must be "head" or "tail", got "${prefer}".`);
  }

  const condition = compileQuery(one(query, 'query') ?? one(query, 'q') ?? '');
  return {
    filter: {
      fromMs,
      toMs,
      hosts: list(query, 'hosts'),
      apps: list(query, 'apps'),
      levels: list(query, 'levels')?.map((level) => level.toUpperCase()),
      tags: list(query, 'tags'),
      condition,
    },
    size,
    prefer,
  };
}
