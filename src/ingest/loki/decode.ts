import snappy from 'snappyjs';
import { BadInputError } from '../../lib/ingest-errors.js';
import { LIMITS } from '../../wire/limits.js';
import { parseLabels } from './labels.js';
import { type ProtoPush, PushRequest } from './schema.js';

/** One stream of a push: its labels and its entries, read but not yet mapped to lines. */
export interface LokiStream {
  labels: Record<string, string>;
  entries: LokiEntry[];
}

export interface LokiEntry {
  /** Unix ms, or undefined when the sender gave no time (0), to be stored at the receive time. */
  ms: number | undefined;
  line: string;
  /** Structured metadata (Loki 3): name to value. */
  metadata: Array<[string, string]>;
}

/** A stream without labels: Loki refuses it with a text of its own. */
export class NoLabelsError extends BadInputError {
  constructor() {
    super('error at least one label pair is required per stream');
  }
}

/** A body that inflates past the body limit: 413, as for a gzip body. */
export class TooLargeError extends BadInputError {}

const bad = (message: string): never => {
  throw new BadInputError(message);
};

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Largest nanosecond time an int64 holds. */
const MAX_NS = 9_223_372_036_854_775_807n;

/** A time in Unix ns (a decimal string, as Loki's JSON has it, or a number) to ms, keeping ms precision. */
function nsToMs(value: unknown): number | undefined {
  let ns: bigint;
  if (typeof value === 'string' && /^\d{1,19}$/.test(value)) ns = BigInt(value);
  else if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) ns = BigInt(value);
  else return bad(`error parsing timestamp ${JSON.stringify(String(value).slice(0, 40))}: expected Unix nanoseconds as a string`);
  if (ns > MAX_NS) bad('error parsing timestamp: out of range');
  return ns === 0n ? undefined : Number(ns / 1_000_000n);
}

function stringPairs(value: unknown, what: string): Array<[string, string]> {
  if (value === undefined || value === null) return [];
  if (!isObject(value)) return bad(`${what} is not an object of strings`);
  const pairs = Object.entries(value);
  for (const [name, item] of pairs) if (typeof item !== 'string') bad(`${what}: the value of ${JSON.stringify(name.slice(0, 100))} is not a string`);
  return pairs as Array<[string, string]>;
}

function checkLabels(labels: Record<string, string>): Record<string, string> {
  if (Object.keys(labels).length === 0) throw new NoLabelsError();
  return labels;
}

/**
 * A JSON push: `{"streams":[{"stream":{labels},"values":[["<ns>","line",{metadata}?], ...]}]}`, or
 * the older `{"streams":[{"labels":"{a=\"b\"}","entries":[{"ts":"<RFC 3339>","line":"..."}]}]}`.
 * Throws BadInputError for anything else: the request is refused whole.
 */
export function decodeJsonPush(body: Buffer): LokiStream[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch (error) {
    return bad(`error parsing JSON: ${(error as Error).message.slice(0, 200)}`);
  }
  if (!isObject(parsed)) return bad('the body is not a JSON object');
  const streams = parsed.streams ?? [];
  if (!Array.isArray(streams)) return bad('"streams" is not an array');
  return streams.map((stream): LokiStream => {
    if (!isObject(stream)) return bad('a stream is not an object');
    if (stream.stream === undefined && typeof stream.labels === 'string') return legacyStream(stream);
    const labels = checkLabels(Object.fromEntries(stringPairs(stream.stream, 'stream labels')));
    const values = stream.values ?? [];
    if (!Array.isArray(values)) return bad('"values" is not an array');
    const entries = values.map((value): LokiEntry => {
      if (!Array.isArray(value) || value.length < 2 || value.length > 3) return bad('a value is not ["<ns timestamp>", "line"] or ["<ns timestamp>", "line", {metadata}]');
      if (typeof value[1] !== 'string') return bad('a log line is not a string');
      return { ms: nsToMs(value[0]), line: value[1], metadata: stringPairs(value[2], 'structured metadata') };
    });
    return { labels, entries };
  });
}

function legacyStream(stream: Record<string, unknown>): LokiStream {
  const labels = checkLabels(parseLabels(stream.labels as string));
  const entries = stream.entries ?? [];
  if (!Array.isArray(entries)) return bad('"entries" is not an array');
  return {
    labels,
    entries: entries.map((entry): LokiEntry => {
      if (!isObject(entry) || typeof entry.line !== 'string') return bad('an entry has no line');
      const ms = typeof entry.ts === 'string' ? Date.parse(entry.ts) : NaN;
      if (Number.isNaN(ms)) return bad('an entry\'s "ts" is not an RFC 3339 time');
      return { ms: ms === 0 ? undefined : ms, line: entry.line, metadata: [] };
    }),
  };
}

/**
 * A protobuf push: a snappy block (not framed) holding a logproto.PushRequest. The length that the
 * block declares is checked against the body limit before anything is inflated.
 */
export function decodeProtobufPush(body: Buffer): LokiStream[] {
  let raw: Uint8Array;
  try {
    raw = snappy.uncompress(body, LIMITS.bodyBytes);
  } catch (error) {
    const message = (error as Error).message;
    if (message.includes('too big')) throw new TooLargeError(message);
    return bad(`error decoding snappy: ${message}`);
  }
  let push: ProtoPush;
  try {
    push = PushRequest.decode(raw) as unknown as ProtoPush;
  } catch (error) {
    return bad(`error decoding protobuf: ${(error as Error).message.slice(0, 200)}`);
  }
  return (push.streams ?? []).map((stream): LokiStream => {
    const labelText = stream.labels ?? '';
    if (labelText.trim() === '') throw new NoLabelsError();
    const labels = checkLabels(parseLabels(labelText));
    const entries = (stream.entries ?? []).map((entry): LokiEntry => {
      const seconds = Number(String(entry.timestamp?.seconds ?? 0));
      const nanos = entry.timestamp?.nanos ?? 0;
      if (!Number.isSafeInteger(seconds) || seconds < 0 || nanos < 0 || nanos > 999_999_999) bad('error parsing timestamp: out of range');
      const ms = seconds * 1000 + Math.floor(nanos / 1_000_000);
      const metadata = (entry.structuredMetadata ?? []).map(({ name, value }): [string, string] => [name ?? '', value ?? '']);
      return { ms: ms === 0 ? undefined : ms, line: entry.line ?? '', metadata };
    });
    return { labels, entries };
  });
}

const HOST_LABELS = ['host', 'hostname', 'instance'];
const APP_LABELS = ['app', 'job', 'service_name'];
const LEVEL_LABELS = ['level', 'detected_level'];
/** Later than any date a JavaScript Date holds (±8.64e15 ms). */
const MAX_DATE_MS = 8.64e15;

/** The first of `names` that the labels have, taken out of `rest`. */
function take(names: string[], labels: Record<string, string>, rest: Map<string, string>): string | undefined {
  for (const name of names) {
    if (Object.hasOwn(labels, name)) {
      rest.delete(name);
      return labels[name];
    }
  }
  return undefined;
}

/**
 * Streams as the intake takes lines, the Mezmo API's line objects: host from `host`, `hostname`
 * or `instance`; app from `app`, `job` or `service_name`; level from `level` or `detected_level`
 * (the first present of each); the other labels and the structured metadata to meta (metadata wins
 * a name both have); the time in ms (ms below 1e11 go as ISO text, which the intake cannot mistake
 * for seconds).
 */
export function toRawLines(streams: LokiStream[]): unknown[] {
  const lines: unknown[] = [];
  for (const { labels, entries } of streams) {
    const rest = new Map(Object.entries(labels));
    const host = take(HOST_LABELS, labels, rest);
    const app = take(APP_LABELS, labels, rest);
    const level = take(LEVEL_LABELS, labels, rest);
    for (const entry of entries) {
      if (entry.ms !== undefined && entry.ms > MAX_DATE_MS) bad('error parsing timestamp: out of range');
      const metaPairs = entry.metadata.length === 0 ? [...rest] : [...new Map([...rest, ...entry.metadata])];
      lines.push({
        line: entry.line,
        host,
        app,
        level,
        timestamp: entry.ms === undefined ? undefined : entry.ms >= 1e11 ? entry.ms : new Date(entry.ms).toISOString(),
        meta: metaPairs.length === 0 ? undefined : Object.fromEntries(metaPairs),
      });
    }
  }
  return lines;
}
