import path from 'node:path';
import { nestedDeeperThan } from '../lib/json-depth.js';
import type { StoredLine } from '../store/types.js';
import { BadInputError } from '../lib/ingest-errors.js';
import { readExtraFields } from './extra-fields.js';
import { type ParsedLine, dockerLine, parseFormat, tailRecordLine } from './formats/index.js';
import type { DockerLine } from './formats/docker.js';
import { withoutMezmoElement } from './formats/syslog-header.js';
import { parseJsonLine } from './json-line.js';
import { lineLevel } from './level.js';
import { LIMITS } from '../wire/limits.js';
import { clip, isObject, label, text } from './text.js';
import { lineTime } from './timestamps.js';

/** What a request says about its source, as its protocol gives it (the Mezmo API: the query string, or the Go SDK's body). */
export interface SourceParams {
  hostname: string;
  ip: string;
  mac: string;
  tags: string[];
  /** The client's clock when it sent the request, in ms, if it said. */
  nowMs: number | null;
}

/** Everything about a request that every one of its lines shares. */
export interface BatchContext {
  account: string;
  batchId: string;
  source: SourceParams;
  receivedAt: number;
  /** Correction added to client timestamps (server clock minus client clock), 0 when negligible. */
  driftMs: number;
  /**
   * The meta object the request's previous line carried, as read. OTLP's records of one resource
   * share one meta object when they have no attributes of their own: it is read once, not per line.
   */
  lastMeta?: { raw: object; read: MetaRead };
}

/** A normalised line whose meta has yet to pass the organisation's type rule. */
export interface PendingLine {
  row: StoredLine;
  metaObject: Record<string, unknown> | null;
  /** The fields a common format parsed (row.fields as an object), whose types the intake settles. */
  formatFields: Record<string, unknown> | null;
}

/**
 * Searchable fields a protocol gives a line beside its text (OTLP's trace_id and span_id), merged
 * over the fields parsed from a JSON line. A symbol, so no client's JSON can set it.
 */
export const PROTOCOL_FIELDS = Symbol('protocol fields');

/** Nesting beyond this in meta or a JSON line is not kept as structure. */
export const MAX_JSON_DEPTH = 64;

/** Cuts a string to at most `maxBytes` of UTF-8 without splitting a character. */
export function truncateUtf8(value: string, maxBytes: number): string {
  if (value.length * 3 <= maxBytes) return value; // cannot exceed: fast path for ordinary lines
  const bytes = Buffer.from(value, 'utf8');
  if (bytes.length <= maxBytes) return value;
  let end = maxBytes;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--; // back off continuation bytes
  return bytes.subarray(0, end).toString('utf8');
}

interface MetaRead {
  text: string;
  object: Record<string, unknown> | null;
  note?: 'too-large' | 'not-an-object';
}

/** readMeta, once for a meta object that consecutive lines share. */
function readSharedMeta(raw: unknown, context: BatchContext): MetaRead {
  if (raw === null || typeof raw !== 'object') return readMeta(raw);
  const memo = context.lastMeta;
  if (memo?.raw === raw) return memo.read;
  const read = readMeta(raw);
  // One memo a request, overwritten: /logs/ingest's lines each carry their own meta object.
  if (memo) ((memo.raw = raw), (memo.read = read));
  else context.lastMeta = { raw, read };
  return read;
}

/** `meta` may be an object or a JSON string of one (the Node and Python SDKs' default). */
function readMeta(raw: unknown): MetaRead {
  if (raw === undefined || raw === null || raw === '') return { text: '', object: null };
  let value: unknown = raw;
  if (typeof raw === 'string') {
    // Only a string holding a JSON object is meta in disguise; "42" or "true" stay strings.
    try {
      value = JSON.parse(raw);
    } catch {
      value = undefined;
    }
    if (!isObject(value)) return { text: truncateUtf8(JSON.stringify(text(raw)), LIMITS.metaBytes), object: null, note: 'not-an-object' };
  }
  // Deeper than anyone indexes, and deep enough to overflow JSON.stringify: the meta is dropped.
  if (nestedDeeperThan(value, MAX_JSON_DEPTH)) return { text: '', object: null };
  const serialised = JSON.stringify(value);
  if (!isObject(value)) return { text: serialised, object: null, note: 'not-an-object' };
  // (Measured in bytes only when the characters could be over: most meta is far under.)
  if (serialised.length * 3 > LIMITS.metaBytes && Buffer.byteLength(serialised) > LIMITS.metaBytes) {
    // Over the 32 KB meta limit: keep what fits for display, parse no fields from it.
    return { text: truncateUtf8(serialised, LIMITS.metaBytes), object: null, note: 'too-large' };
  }
  if (serialised === '{}') return { text: '', object: null };
  return { text: serialised, object: value };
}

/** How far back a line's own timestamp is believed when no timestamp came with the line. */
const OWN_TIME_MAX_AGE_MS = 86_400_000;

/**
 * The time a format read in a line's text, when it is recent: an old one is more likely a sample
 * or a copied file than the moment of sending, and stored under it the line would fall outside
 * every recent search, or past its retention at once.
 */
function recentOwnTime(format: { ts?: number } | null, receivedAt: number): number | undefined {
  const ts = format?.ts;
  return ts !== undefined && receivedAt - ts <= OWN_TIME_MAX_AGE_MS ? ts : undefined;
}

/**
 * What a Docker json-file line's inner line was parsed as, with its stream as a field and Docker's
 * time; `docker` when the inner line is in no format (a format's own `_logtype` names the program).
 */
function withDocker(format: ParsedLine | null, docker: DockerLine): ParsedLine {
  const fields = { ...format?.fields, stream: docker.stream };
  if (!format) return { logtype: 'docker', fields, ts: docker.ts };
  return { ...format, logtype: format.logtype ?? 'docker', fields, ts: docker.ts ?? format.ts };
}

/**
 * The file's line inside a Fluent Bit tail record, parsed once: its JSON fields or its format.
 * Null when the record is not one, or when the line inside is in no format, so the record stays a
 * JSON line of its own.
 */
function tailedLine(record: Record<string, unknown>, source: string): { text: string; json: Record<string, unknown> | null; format: ParsedLine | null } | null {
  const text = tailRecordLine(record);
  if (text === null) return null;
  const json = parseJsonLine(text);
  if (json) return { text, json, format: null };
  const format = parseFormat(text, source);
  return format?.logtype ? { text, json: null, format } : null;
}

/**
 * Turns one client line into a stored row. Accepts the documented keys and the legacy agent's
 * short ones (`l`, `t`, `f`). Throws BadInputError for an element that is not a line at all, so the
 * whole request is refused before anything is written.
 */
export function normaliseLine(raw: unknown, context: BatchContext, id: string): PendingLine {
  if (!isObject(raw)) throw new BadInputError('a line element is not an object');
  const rawLine = raw.line ?? raw.l;
  if (rawLine === undefined || rawLine === null) throw new BadInputError('a line element has no line');
  if (typeof rawLine === 'object' && nestedDeeperThan(rawLine, MAX_JSON_DEPTH)) throw new BadInputError(`a line nested deeper than ${MAX_JSON_DEPTH} levels`);
  const sent = truncateUtf8(text(typeof rawLine === 'object' ? JSON.stringify(rawLine) : rawLine), LIMITS.lineBytes);

  const file = label(raw.file ?? raw.f, LIMITS.file);
  const givenApp = label(raw.app, LIMITS.app);
  let parsedFields = parseJsonLine(sent);
  // A Docker json-file line is unwrapped: the program's own line is stored, and parsed, instead.
  const docker = parsedFields && dockerLine(parsedFields);
  let own = docker ? docker.inner : sent;
  if (docker) parsedFields = parseJsonLine(own);
  // A file's line as Fluent Bit's tail input wraps it ({"log": "..."}) is stored as sent (its
  // escapes kept, README "Fluent Bit"), with the fields of the line inside, parsed as if sent alone.
  const tail = parsedFields && !docker ? tailedLine(parsedFields, givenApp || file) : null;
  const tailedFields = tail ? parsedFields : null;
  if (tail) {
    own = tail.text;
    parsedFields = tail.json;
  }
  const jsonFields = parsedFields && !nestedDeeperThan(parsedFields, MAX_JSON_DEPTH) ? parsedFields : null;
  // Not JSON: one of the common formats (formats/index.ts), or text as before.
  let format: ParsedLine | null = jsonFields ? null : (tail?.format ?? parseFormat(own, givenApp || file));
  if (docker && !jsonFields) format = withDocker(format, docker);
  // A relayed syslog line may carry Mezmo's structured data, and with it the sender's ingestion
  // key: the format parser leaves it out of the fields, and the stored text leaves it out too.
  const line = tailedFields ? sent : jsonFields ? own : withoutMezmoElement(own);
  const ownFields = jsonFields ? (docker ? { ...jsonFields, stream: docker.stream } : jsonFields) : (format?.fields ?? null);
  const lineFields = tailedFields ? { ...tailedFields, ...ownFields } : ownFields;
  const given = (raw as { [PROTOCOL_FIELDS]?: Record<string, string> })[PROTOCOL_FIELDS];
  const fields = given ? { ...lineFields, ...given } : lineFields;
  // A syslog header names the program and host that wrote the line, not the relay that sent it.
  const app = format?.app || givenApp || clip(path.basename(file), LIMITS.app);
  const jsonLevel = fields && typeof fields.level === 'string' ? fields.level : '';
  // A format's own level (a syslog severity, an error log's level) outranks the client's default;
  // a level merely read from a text prefix does not.
  const formatLevel = format?.logtype ? format.level : undefined;
  const level = lineLevel(jsonLevel || formatLevel || raw.level || format?.level, line);
  const host = format?.host || label(raw.host ?? raw.hostname, LIMITS.hostname) || context.source.hostname;
  const meta = readSharedMeta(raw.meta, context);

  return {
    row: {
      account: context.account,
      ts: lineTime(raw.timestamp ?? raw.t ?? recentOwnTime(docker && jsonFields ? docker : format, context.receivedAt), context.receivedAt, context.driftMs),
      id,
      batch_id: context.batchId,
      host,
      app,
      level,
      env: label(raw.env, LIMITS.env),
      file,
      ip: context.source.ip,
      mac: context.source.mac,
      tags: context.source.tags,
      line,
      logtype: jsonFields ? 'json' : (format?.logtype ?? 'text'),
      fields: fields ? JSON.stringify(fields) : '',
      meta: meta.text,
      meta_indexed: false,
      meta_note: meta.note ?? '',
      extra: readExtraFields(raw),
      size: Buffer.byteLength(line),
    },
    metaObject: meta.object,
    formatFields: format?.fields ? fields : null,
  };
}
