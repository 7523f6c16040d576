import { PROTOCOL_FIELDS } from '../normalise.js';

/** A request that is not OTLP as sent: nothing of it is stored, and the sender gets 400 / INVALID_ARGUMENT. */
export class OtlpInputError extends Error {}

/** Deeper AnyValue nesting than anyone logs; refused rather than walked (and beyond what meta keeps, 64). */
export const MAX_DEPTH = 100;

type Obj = Record<string, unknown>;

const isObj = (value: unknown): value is Obj => value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Uint8Array);

/**
 * A field by its protobuf (camelCase) name, or the snake_case one some JSON senders write. Own
 * properties only: a decoded protobuf message has the fields it carried as its own, and defaults
 * ("" for every member of AnyValue's oneof) on its prototype.
 */
function field(object: Obj, camel: string, snake: string): unknown {
  const value = Object.hasOwn(object, camel) ? object[camel] : undefined;
  return value === undefined || value === null ? (Object.hasOwn(object, snake) ? object[snake] : undefined) : value;
}

function list(object: Obj, camel: string, snake: string, what: string): unknown[] {
  const value = field(object, camel, snake);
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new OtlpInputError(`${what} is not an array`);
  return value;
}

function message(value: unknown, what: string): Obj | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObj(value)) throw new OtlpInputError(`${what} is not an object`);
  return value;
}

interface LongLike {
  low: number;
  high: number;
  unsigned?: boolean;
  toString(): string;
}
const isLong = (value: unknown): value is LongLike => isObj(value) && typeof value.low === 'number' && typeof value.high === 'number';

/** An int64 as JSON keeps it: a number while exact, else its decimal text. */
export function integer(value: unknown, what: string): number | string {
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw new OtlpInputError(`${what} is not an integer`);
    return value;
  }
  if (typeof value === 'string') {
    if (!/^-?\d{1,20}$/.test(value)) throw new OtlpInputError(`${what} is not an integer`);
    const number = Number(value);
    return Number.isSafeInteger(number) ? number : BigInt(value).toString();
  }
  if (isLong(value)) {
    // From its two halves while exact (every int64 a log carries, in practice); text beyond that.
    const number = (value.unsigned ? value.high >>> 0 : value.high) * 4294967296 + (value.low >>> 0);
    return Number.isSafeInteger(number) ? number : value.toString();
  }
  throw new OtlpInputError(`${what} is not an integer`);
}

/** Nanoseconds since the epoch (fixed64: a Long from protobuf, a string or number in JSON) as ms, to the nearest; undefined for 0 or none. */
function nanosToMs(value: unknown, what: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  let nanos: number;
  if (isLong(value)) nanos = (value.high >>> 0) * 4294967296 + (value.low >>> 0);
  else if (typeof value === 'number' && Number.isFinite(value) && value >= 0) nanos = value;
  else if (typeof value === 'string' && /^\d{1,20}$/.test(value)) nanos = Number(value);
  else throw new OtlpInputError(`${what} is not a time in nanoseconds`);
  return msOfNanos(nanos);
}

/**
 * Nanoseconds as ms to the nearest (undefined for 0): senders that start from a ms clock (the JS
 * SDK) carry float error, 5 ms arriving as 4.999999 ms, and truncating would move their lines back by one.
 */
export const msOfNanos = (nanos: number): number | undefined => (nanos > 0 ? Math.round(nanos / 1e6) : undefined);

/** A protobuf double, or JSON's number or its "NaN", "Infinity" and "-Infinity" texts (which JSON meta keeps as text). */
export function double(value: unknown, what: string): number | string {
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'string') {
    if (value === 'NaN' || value === 'Infinity' || value === '-Infinity') return value;
    const number = Number(value);
    if (value.trim() !== '' && Number.isFinite(number)) return number;
  }
  throw new OtlpInputError(`${what} is not a number`);
}

/** bytes: a Uint8Array from protobuf, base64 text in JSON; kept as base64 text. */
export function base64(value: unknown, what: string): string {
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  if (typeof value === 'string') return value;
  throw new OtlpInputError(`${what} is not bytes`);
}

/**
 * A trace or span id as lower-case hex: bytes from protobuf, hex text in OTLP/JSON. All zeros, or
 * none, is no id. A JSON id that is not hex of the right length is refused, as the collector does.
 */
export function hexId(value: unknown, bytes: number, what: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  let hex: string;
  if (value instanceof Uint8Array) {
    if (value.length === 0) return undefined;
    if (value.length !== bytes) throw new OtlpInputError(`${what} is not ${bytes} bytes`);
    hex = Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex');
  } else if (typeof value === 'string' && value.length === bytes * 2 && /^[0-9a-fA-F]+$/.test(value)) {
    hex = value.toLowerCase();
  } else {
    throw new OtlpInputError(`${what} is not ${bytes * 2} hex digits`);
  }
  return /^0+$/.test(hex) ? undefined : hex;
}

/** An AnyValue as JSON keeps it: text, number, boolean, array, object; null when empty. */
function anyValue(value: unknown, depth: number): unknown {
  if (value === undefined || value === null) return null;
  if (depth > MAX_DEPTH) throw new OtlpInputError(`a value nested deeper than ${MAX_DEPTH} levels`);
  if (!isObj(value)) throw new OtlpInputError('a value is not an AnyValue');
  let got: unknown;
  if ((got = field(value, 'stringValue', 'string_value')) !== undefined && got !== null) {
    if (typeof got !== 'string') throw new OtlpInputError('stringValue is not a string');
    return got;
  }
  if ((got = field(value, 'boolValue', 'bool_value')) !== undefined && got !== null) {
    if (typeof got !== 'boolean') throw new OtlpInputError('boolValue is not a boolean');
    return got;
  }
  if ((got = field(value, 'intValue', 'int_value')) !== undefined && got !== null) return integer(got, 'intValue');
  if ((got = field(value, 'doubleValue', 'double_value')) !== undefined && got !== null) return double(got, 'doubleValue');
  if ((got = field(value, 'arrayValue', 'array_value')) !== undefined && got !== null) {
    const array = message(got, 'arrayValue')!;
    return list(array, 'values', 'values', 'arrayValue.values').map((item) => anyValue(item, depth + 1));
  }
  if ((got = field(value, 'kvlistValue', 'kvlist_value')) !== undefined && got !== null) {
    const kvlist = message(got, 'kvlistValue')!;
    const object: Obj = {};
    for (const [key, item] of keyValues(list(kvlist, 'values', 'values', 'kvlistValue.values'), depth + 1)) setOwn(object, key, item);
    return object;
  }
  if ((got = field(value, 'bytesValue', 'bytes_value')) !== undefined && got !== null) return base64(got, 'bytesValue');
  return null;
}

function keyValues(entries: unknown[], depth: number): Array<[string, unknown]> {
  return entries.map((entry) => {
    const pair = message(entry, 'an attribute');
    if (!pair) throw new OtlpInputError('an attribute is null');
    const key = Object.hasOwn(pair, 'key') ? pair.key : '';
    if (typeof key !== 'string') throw new OtlpInputError('an attribute key is not a string');
    return [key, anyValue(field(pair, 'value', 'value'), depth)];
  });
}

/**
 * A property of its own even for "__proto__", which plain assignment would take as the prototype.
 * Only that name needs defineProperty: it costs several times an assignment on every attribute.
 */
export function setOwn(object: Obj, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}

/**
 * A copy of a meta object, its nested objects and arrays copied too (a record's attributes may nest
 * into them), faster than nesting the same resource attributes again for every record.
 */
function copyOf(source: Obj): Obj {
  const copy: Obj = {};
  for (const key of Object.keys(source)) setOwn(copy, key, copiedValue(source[key]));
  return copy;
}

function copiedValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copiedValue);
  return isObj(value) ? copyOf(value) : value;
}

/**
 * Attributes into meta: a dotted OpenTelemetry name (`http.request.method`) nests, so that
 * `meta.http.request.method:GET` finds it as the query language reads paths. A name that cannot
 * nest (an empty part, or a part already holding a value that is no object) stays as it is.
 */
function putAttribute(meta: Obj, key: string, value: unknown): void {
  const parts = key.includes('.') ? key.split('.') : undefined;
  if (parts && parts.every((part) => part !== '')) {
    let at = meta;
    let nests = true;
    for (let index = 0; index < parts.length - 1; index++) {
      const next = Object.hasOwn(at, parts[index]) ? at[parts[index]] : undefined;
      if (next === undefined) {
        const created: Obj = {};
        setOwn(at, parts[index], created);
        at = created;
      } else if (isObj(next)) {
        at = next;
      } else {
        nests = false;
        break;
      }
    }
    const last = parts[parts.length - 1];
    if (nests && !(Object.hasOwn(at, last) && isObj(at[last]))) {
      setOwn(at, last, value);
      return;
    }
  }
  if (!(Object.hasOwn(meta, key) && isObj(meta[key]) && !isObj(value))) setOwn(meta, key, value);
}

/** SeverityNumber ranges to Logstead's level names (the OpenTelemetry log data model's short names). */
export function severityLevel(number: number): string | undefined {
  if (number >= 1 && number <= 4) return 'TRACE';
  if (number >= 5 && number <= 8) return 'DEBUG';
  if (number >= 9 && number <= 12) return 'INFO';
  if (number >= 13 && number <= 16) return 'WARN';
  if (number >= 17 && number <= 20) return 'ERROR';
  if (number >= 21 && number <= 24) return 'FATAL';
  return undefined;
}

const SEVERITY_NAMES: Record<string, number> = { TRACE: 1, DEBUG: 5, INFO: 9, WARN: 13, ERROR: 17, FATAL: 21 };

/** severity_number: an int32 from protobuf; in JSON a number, or the enum's name (SEVERITY_NUMBER_WARN2). */
function severityNumber(value: unknown): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string') {
    const match = /^SEVERITY_NUMBER_(TRACE|DEBUG|INFO|WARN|ERROR|FATAL)([234]?)$/.exec(value);
    if (match) return SEVERITY_NAMES[match[1]] + (match[2] ? Number(match[2]) - 1 : 0);
    if (value === 'SEVERITY_NUMBER_UNSPECIFIED') return 0;
  }
  throw new OtlpInputError('severityNumber is not a severity');
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined);

/** A line in the Mezmo shape the intake takes (normalise.ts), with OTLP's ids as searchable fields. */
export interface OtlpLine {
  line: unknown;
  app?: string;
  host: string;
  level?: string;
  timestamp?: number;
  meta?: Obj;
  [PROTOCOL_FIELDS]?: Record<string, string>;
}

/** A log record as OTLP gives it, read from JSON (recordParts) or protobuf (protobuf-lines.ts). */
export interface RecordParts {
  attributes: Array<[string, unknown]>;
  /** The body as JSON keeps it; null when it has none. */
  body: unknown;
  eventName: string | undefined;
  /** The level from severity_text, else from severity_number; undefined when neither names one. */
  level: string | undefined;
  /** time_unix_nano, else observed_time_unix_nano, in ms; undefined when neither is set. */
  timestamp: number | undefined;
  traceId: string | undefined;
  spanId: string | undefined;
}

/** severity_text (trimmed) when it says something, else severity_number's range; `number` is asked only then. */
export function levelOf(severityText: string | undefined, number: () => number): string | undefined {
  const trimmed = severityText?.trim();
  return trimmed ? trimmed : severityLevel(number());
}

/**
 * The lines of one resource's records: the resource's `service.name` to app, `host.name` (else
 * `hostname`) to host, its attributes to every line's meta.
 */
export class ResourceLines {
  private readonly app: string | undefined;
  private readonly host: string | undefined;
  private readonly meta: Obj = {};
  /** The resource's meta when it has any: the lines of records without attributes share it. */
  private readonly shared: Obj | undefined;

  constructor(attributes: Array<[string, unknown]>) {
    let hostName: string | undefined;
    let hostname: string | undefined;
    for (const [key, value] of attributes) {
      if (key === 'service.name') this.app = text(value);
      else if (key === 'host.name') hostName = text(value);
      else if (key === 'hostname') hostname = text(value);
    }
    this.host = hostName ?? hostname;
    // Nested once here. A record with attributes of its own starts from a copy; the others share
    // this object, which nothing after mapping changes, and the intake reads a meta object that
    // consecutive lines share only once (normalise.ts).
    for (const [key, value] of attributes) putAttribute(this.meta, key, value);
    this.shared = attributes.length > 0 ? this.meta : undefined;
  }

  line(record: RecordParts): OtlpLine {
    let meta = this.shared;
    let recordHost: string | undefined;
    if (record.attributes.length > 0) {
      meta = copyOf(this.meta);
      for (const [key, value] of record.attributes) {
        putAttribute(meta, key, value);
        if (key === 'hostname') recordHost = text(value);
      }
    }
    const { body } = record;
    const line = body === null ? (record.eventName ?? '') : typeof body === 'object' ? body : String(body);
    const out: OtlpLine = { line, host: this.host ?? recordHost ?? 'unknown' };
    if (this.app) out.app = this.app;
    if (record.level) out.level = record.level;
    if (record.timestamp !== undefined) out.timestamp = record.timestamp;
    if (meta) out.meta = meta;
    if (record.traceId || record.spanId) {
      const ids: Record<string, string> = {};
      if (record.traceId) ids.trace_id = record.traceId;
      if (record.spanId) ids.span_id = record.spanId;
      out[PROTOCOL_FIELDS] = ids;
    }
    return out;
  }
}

/**
 * The lines of an ExportLogsServiceRequest parsed from OTLP/JSON (camelCase; snake_case accepted
 * too), or decoded by protobufjs into the same shape. Anything that is not OTLP throws
 * OtlpInputError, so that nothing of the request is stored.
 */
export function linesOfRequest(request: unknown): OtlpLine[] {
  const root = message(request, 'the request');
  if (!root) throw new OtlpInputError('the request is not an object');
  const lines: OtlpLine[] = [];
  for (const resourceLogs of list(root, 'resourceLogs', 'resource_logs', 'resourceLogs')) {
    const rl = message(resourceLogs, 'a resourceLogs');
    if (!rl) continue;
    const resource = message(rl.resource, 'resource');
    const resourceLines = new ResourceLines(keyValues(resource ? list(resource, 'attributes', 'attributes', 'resource.attributes') : [], 0));
    for (const scopeLogs of list(rl, 'scopeLogs', 'scope_logs', 'scopeLogs')) {
      const sl = message(scopeLogs, 'a scopeLogs');
      if (!sl) continue;
      for (const logRecord of list(sl, 'logRecords', 'log_records', 'logRecords')) {
        const record = message(logRecord, 'a logRecord');
        if (!record) continue;
        lines.push(resourceLines.line(recordParts(record)));
      }
    }
  }
  return lines;
}

function recordParts(record: Obj): RecordParts {
  const attributes = keyValues(list(record, 'attributes', 'attributes', 'attributes'), 0);
  const body = anyValue(field(record, 'body', 'body'), 0);
  const eventName = field(record, 'eventName', 'event_name');
  const severityText = field(record, 'severityText', 'severity_text');
  if (severityText !== undefined && severityText !== null && typeof severityText !== 'string') throw new OtlpInputError('severityText is not a string');
  const level = levelOf(severityText ?? undefined, () => severityNumber(field(record, 'severityNumber', 'severity_number')));
  const timestamp = nanosToMs(field(record, 'timeUnixNano', 'time_unix_nano'), 'timeUnixNano') ?? nanosToMs(field(record, 'observedTimeUnixNano', 'observed_time_unix_nano'), 'observedTimeUnixNano');
  const traceId = hexId(field(record, 'traceId', 'trace_id'), 16, 'traceId');
  const spanId = hexId(field(record, 'spanId', 'span_id'), 8, 'spanId');
  return { attributes, body, eventName: typeof eventName === 'string' ? eventName : undefined, level, timestamp, traceId, spanId };
}

/** Parses an OTLP/JSON request; a body that is not JSON throws OtlpInputError. */
export function parseJson(body: Buffer): unknown {
  if (body.length === 0) return {};
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new OtlpInputError(`the body is not JSON: ${(error as Error).message}`);
  }
}
