import path from 'node:path';
import { errors } from '../http/errors.js';
import { nestedDeeperThan } from '../lib/json-depth.js';
import type { StoredLine } from '../store/log-store.js';
import { parseJsonLine } from './json-line.js';
import { detectLevel } from './level.js';
import { LIMITS, type SourceParams } from './params.js';
import { lineTime } from './timestamps.js';

/** Everything about a request that every one of its lines shares. */
export interface BatchContext {
  account: string;
  batchId: string;
  source: SourceParams;
  receivedAt: number;
  /** Correction added to client timestamps (server clock minus client clock), 0 when negligible. */
  driftMs: number;
}

/** A normalised line whose meta has yet to pass the organisation's type rule. */
export interface PendingLine {
  row: StoredLine;
  metaObject: Record<string, unknown> | null;
}

/** Nesting beyond this in meta or a JSON line is not kept as structure. */
export const MAX_JSON_DEPTH = 64;

/** Source fields of the legacy agent and agent v2 that are kept, but rarely searched. */
const EXTRA_KEYS = ['pid', 'prival', 'containerid', 'label', 'annotation'] as const;

/**
 * A client value as text. Lone surrogates (invalid UTF-16, possible in JSON's \u escapes) become
 * U+FFFD: the store cannot hold them, and one would fail every request sharing its insert.
 */
function text(value: unknown): string {
  if (typeof value === 'string') return value.toWellFormed();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

/** Cuts to at most `max` UTF-16 units without splitting a surrogate pair. */
function clip(value: string, max: number): string {
  if (value.length <= max) return value;
  const code = value.charCodeAt(max - 1);
  return value.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** Cuts a string to at most `maxBytes` of UTF-8 without splitting a character. */
export function truncateUtf8(value: string, maxBytes: number): string {
  if (value.length * 3 <= maxBytes) return value; // cannot exceed: fast path for ordinary lines
  const bytes = Buffer.from(value, 'utf8');
  if (bytes.length <= maxBytes) return value;
  let end = maxBytes;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--; // back off continuation bytes
  return bytes.subarray(0, end).toString('utf8');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `meta` may be an object or a JSON string of one (the Node and Python SDKs' default). */
function readMeta(raw: unknown): { text: string; object: Record<string, unknown> | null } {
  if (raw === undefined || raw === null || raw === '') return { text: '', object: null };
  let value: unknown = raw;
  if (typeof raw === 'string') {
    // Only a string holding a JSON object is meta in disguise; "42" or "true" stay strings.
    try {
      value = JSON.parse(raw);
    } catch {
      value = undefined;
    }
    if (!isObject(value)) return { text: truncateUtf8(JSON.stringify(text(raw)), LIMITS.metaBytes), object: null };
  }
  // Deeper than anyone indexes, and deep enough to overflow JSON.stringify: the meta is dropped.
  if (nestedDeeperThan(value, MAX_JSON_DEPTH)) return { text: '', object: null };
  const serialised = JSON.stringify(value);
  if (!isObject(value)) return { text: serialised, object: null };
  if (Buffer.byteLength(serialised) > LIMITS.metaBytes) {
    // Over the 32 KB meta limit: keep what fits for display, parse no fields from it.
    return { text: truncateUtf8(serialised, LIMITS.metaBytes), object: null };
  }
  if (Object.keys(value).length === 0) return { text: '', object: null };
  return { text: serialised, object: value };
}

/**
 * Turns one client line into a stored row. Accepts the documented keys and the legacy agent's
 * short ones (`l`, `t`, `f`). Throws BadRequest for an element that is not a line at all, so the
 * whole request is refused before anything is written.
 */
export function normaliseLine(raw: unknown, context: BatchContext, id: string): PendingLine {
  if (!isObject(raw)) throw errors.badRequest();
  const rawLine = raw.line ?? raw.l;
  if (rawLine === undefined || rawLine === null) throw errors.badRequest();
  if (typeof rawLine === 'object' && nestedDeeperThan(rawLine, MAX_JSON_DEPTH)) throw errors.badRequest();
  const line = truncateUtf8(text(typeof rawLine === 'object' ? JSON.stringify(rawLine) : rawLine), LIMITS.lineBytes);

  const parsedFields = parseJsonLine(line);
  const fields = parsedFields && !nestedDeeperThan(parsedFields, MAX_JSON_DEPTH) ? parsedFields : null;
  const file = text(raw.file ?? raw.f);
  const app = clip(text(raw.app) || (file ? path.basename(file) : ''), LIMITS.app);
  const jsonLevel = fields && typeof fields.level === 'string' ? fields.level : '';
  const level = clip((jsonLevel || text(raw.level) || detectLevel(line)).toUpperCase(), LIMITS.level);
  const host = clip(text(raw.host ?? raw.hostname) || context.source.hostname, LIMITS.hostname);
  const meta = readMeta(raw.meta);

  let extra: Record<string, unknown> | undefined;
  for (const key of EXTRA_KEYS) {
    if (raw[key] !== undefined && raw[key] !== null && !nestedDeeperThan(raw[key], MAX_JSON_DEPTH)) (extra ??= {})[key] = raw[key];
  }

  return {
    row: {
      account: context.account,
      ts: lineTime(raw.timestamp ?? raw.t, context.receivedAt, context.driftMs),
      id,
      batch_id: context.batchId,
      host,
      app,
      level,
      env: text(raw.env),
      file,
      ip: context.source.ip,
      mac: context.source.mac,
      tags: context.source.tags,
      line,
      logtype: fields ? 'json' : 'text',
      fields: fields ? JSON.stringify(fields) : '',
      meta: meta.text,
      meta_indexed: false,
      extra: extra ? JSON.stringify(extra) : '',
      size: Buffer.byteLength(line),
    },
    metaObject: meta.object,
  };
}
