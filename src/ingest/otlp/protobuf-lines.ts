import protobuf from 'protobufjs';
import { MAX_DEPTH, OtlpInputError, type OtlpLine, type RecordParts, ResourceLines, base64, double, hexId, integer, levelOf, msOfNanos, setOwn } from './mapping.js';

/**
 * The lines of an OTLP/protobuf ExportLogsServiceRequest, read from its bytes with protobufjs's
 * wire reader straight into the parts mapping.ts makes lines of. protobufjs's decoder for the same
 * messages (proto.ts) first builds an object for every record, attribute and value, and a Long for
 * every time: half of what OTLP cost beyond /logs/ingest a line (bench/protocols). Field numbers
 * and wire types are those of proto.ts; a field this reader does not know, or a known one with
 * another wire type, is skipped as protobuf skips unknown fields. As protobufjs decodes, a
 * repeated singular field keeps its last value, a repeated message field its last message.
 * Bytes that are not such a request throw OtlpInputError.
 */
export function linesOfProtobuf(body: Uint8Array): OtlpLine[] {
  try {
    return readRequest(protobuf.Reader.create(body));
  } catch (error) {
    if (error instanceof OtlpInputError) throw error;
    throw new OtlpInputError(`the body is not an OTLP protobuf ExportLogsServiceRequest: ${(error as Error).message}`);
  }
}

type Reader = protobuf.Reader;

/** A field's tag: its number and wire type as the wire carries them. */
const tag = (field: number, wireType: number) => (field << 3) | wireType;
const VARINT = 0;
const FIXED64 = 1;
const LEN = 2;

/** Where a length-delimited field that starts here ends. */
function endOf(reader: Reader): number {
  const length = reader.uint32();
  const end = reader.pos + length;
  if (end > reader.len) throw new OtlpInputError('a field runs past the end of the body');
  return end;
}

/** After a message's fields: a field that ran past the message's own length is not protobuf. */
function ended(reader: Reader, end: number): void {
  if (reader.pos !== end) throw new OtlpInputError('a field runs past the end of its message');
}

/** A fixed64 as a number (exact to 2^53; times in nanoseconds are far under 2^63). */
function fixed64(reader: Reader): number {
  const low = reader.fixed32();
  return reader.fixed32() * 4294967296 + low;
}

function readRequest(reader: Reader): OtlpLine[] {
  const lines: OtlpLine[] = [];
  while (reader.pos < reader.len) {
    const at = reader.uint32();
    if (at === tag(1, LEN)) readResourceLogs(reader, endOf(reader), lines);
    else reader.skipType(at & 7);
  }
  return lines;
}

function readResourceLogs(reader: Reader, end: number, lines: OtlpLine[]): void {
  // The resource may come after its records on the wire: the records wait for it.
  let attributes: Array<[string, unknown]> = [];
  const records: RecordParts[] = [];
  while (reader.pos < end) {
    const at = reader.uint32();
    if (at === tag(1, LEN)) attributes = readResource(reader, endOf(reader));
    else if (at === tag(2, LEN)) readScopeLogs(reader, endOf(reader), records);
    else reader.skipType(at & 7);
  }
  ended(reader, end);
  const resource = new ResourceLines(attributes);
  for (const record of records) lines.push(resource.line(record));
}

function readResource(reader: Reader, end: number): Array<[string, unknown]> {
  const attributes: Array<[string, unknown]> = [];
  while (reader.pos < end) {
    const at = reader.uint32();
    if (at === tag(1, LEN)) attributes.push(readKeyValue(reader, endOf(reader), 0));
    else reader.skipType(at & 7);
  }
  ended(reader, end);
  return attributes;
}

function readScopeLogs(reader: Reader, end: number, records: RecordParts[]): void {
  while (reader.pos < end) {
    const at = reader.uint32();
    if (at === tag(2, LEN)) records.push(readLogRecord(reader, endOf(reader)));
    else reader.skipType(at & 7);
  }
  ended(reader, end);
}

function readLogRecord(reader: Reader, end: number): RecordParts {
  const attributes: Array<[string, unknown]> = [];
  let body: unknown = null;
  let eventName: string | undefined;
  let severityText: string | undefined;
  let severityNumber = 0;
  let time = 0;
  let observed = 0;
  let traceId: Uint8Array | undefined;
  let spanId: Uint8Array | undefined;
  while (reader.pos < end) {
    const at = reader.uint32();
    switch (at) {
      case tag(1, FIXED64):
        time = fixed64(reader);
        break;
      case tag(11, FIXED64):
        observed = fixed64(reader);
        break;
      case tag(2, VARINT):
        severityNumber = reader.int32();
        break;
      case tag(3, LEN):
        severityText = reader.string();
        break;
      case tag(5, LEN):
        body = readAnyValue(reader, endOf(reader), 0);
        break;
      case tag(6, LEN):
        attributes.push(readKeyValue(reader, endOf(reader), 0));
        break;
      case tag(9, LEN):
        traceId = reader.bytes();
        break;
      case tag(10, LEN):
        spanId = reader.bytes();
        break;
      case tag(12, LEN):
        eventName = reader.string();
        break;
      default:
        reader.skipType(at & 7);
    }
  }
  ended(reader, end);
  return {
    attributes,
    body,
    eventName,
    level: levelOf(severityText, () => severityNumber),
    timestamp: msOfNanos(time) ?? msOfNanos(observed),
    traceId: hexId(traceId, 16, 'traceId'),
    spanId: hexId(spanId, 8, 'spanId'),
  };
}

function readKeyValue(reader: Reader, end: number, depth: number): [string, unknown] {
  let key = '';
  let value: unknown = null;
  while (reader.pos < end) {
    const at = reader.uint32();
    if (at === tag(1, LEN)) key = reader.string();
    else if (at === tag(2, LEN)) value = readAnyValue(reader, endOf(reader), depth);
    else reader.skipType(at & 7);
  }
  ended(reader, end);
  return [key, value];
}

/**
 * An AnyValue as JSON keeps it (mapping.ts's anyValue): the member it carries, null when none. A
 * value that carries two members, which no sender writes, is read as mapping.ts reads one decoded
 * by protobufjs: text first, then boolean, integer, double, array, map, bytes.
 */
function readAnyValue(reader: Reader, end: number, depth: number): unknown {
  if (depth > MAX_DEPTH) throw new OtlpInputError(`a value nested deeper than ${MAX_DEPTH} levels`);
  let text: string | undefined;
  let bool: boolean | undefined;
  let int: number | string | undefined;
  let number: number | string | undefined;
  let array: unknown[] | undefined;
  let map: Record<string, unknown> | undefined;
  let bytes: string | undefined;
  while (reader.pos < end) {
    const at = reader.uint32();
    switch (at) {
      case tag(1, LEN):
        text = reader.string();
        break;
      case tag(2, VARINT):
        bool = reader.bool();
        break;
      case tag(3, VARINT):
        int = integer(reader.int64(), 'intValue');
        break;
      case tag(4, FIXED64):
        number = double(reader.double(), 'doubleValue');
        break;
      case tag(5, LEN):
        array = readValues(reader, endOf(reader), depth + 1);
        break;
      case tag(6, LEN):
        map = readMap(reader, endOf(reader), depth + 1);
        break;
      case tag(7, LEN):
        bytes = base64(reader.bytes(), 'bytesValue');
        break;
      default:
        reader.skipType(at & 7);
    }
  }
  ended(reader, end);
  return text ?? bool ?? int ?? number ?? array ?? map ?? bytes ?? null;
}

/** An ArrayValue's values. */
function readValues(reader: Reader, end: number, depth: number): unknown[] {
  const values: unknown[] = [];
  while (reader.pos < end) {
    const at = reader.uint32();
    if (at === tag(1, LEN)) values.push(readAnyValue(reader, endOf(reader), depth));
    else reader.skipType(at & 7);
  }
  ended(reader, end);
  return values;
}

/** A KeyValueList as an object, a later key replacing an earlier one. */
function readMap(reader: Reader, end: number, depth: number): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  while (reader.pos < end) {
    const at = reader.uint32();
    if (at === tag(1, LEN)) {
      const [key, value] = readKeyValue(reader, endOf(reader), depth);
      setOwn(object, key, value);
    } else reader.skipType(at & 7);
  }
  ended(reader, end);
  return object;
}
