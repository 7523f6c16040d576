import protobuf from 'protobufjs';

/**
 * The OTLP log messages Logstead reads and answers, transcribed from the OpenTelemetry protocol's
 * .proto files (github.com/open-telemetry/opentelemetry-proto, Apache-2.0, v1.5:
 * common/v1/common.proto, resource/v1/resource.proto, logs/v1/logs.proto,
 * collector/logs/v1/logs_service.proto) and google/rpc/status.proto, keeping only the messages
 * and fields logs need, with their numbers and wire types unchanged. Fields left out (entity refs,
 * profiles) are skipped on decode as unknown fields, which is what protobuf does anyway.
 * `severity_number` is read as an int32, as its enum travels: any number is kept, even one the
 * enum does not name. AnyValue's `oneof value` is declared as seven `optional` fields: the same
 * bytes on the wire and the same presence (an empty string or a false is kept), but protobufjs
 * decodes a oneof member by deleting each of the others from the message, which took two thirds
 * of decoding a request (bench/protocols' lines: 2.4 µs a line with the oneof, 0.9 without). A
 * value that carries two members, which no sender writes, is read by the first that mapping.ts
 * tries rather than the last on the wire.
 *
 * The server reads requests with protobuf-lines.ts, which follows these field numbers and wire
 * types without building these messages; these types encode its answers, and the tests and
 * benchmarks encode requests with them (and decode them, as the reader's reference).
 */
const SCHEMA = `
syntax = "proto3";
package opentelemetry.proto;

message AnyValue {
  optional string string_value = 1;
  optional bool bool_value = 2;
  optional int64 int_value = 3;
  optional double double_value = 4;
  optional ArrayValue array_value = 5;
  optional KeyValueList kvlist_value = 6;
  optional bytes bytes_value = 7;
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope {
  string name = 1;
  string version = 2;
  repeated KeyValue attributes = 3;
  uint32 dropped_attributes_count = 4;
}
message Resource {
  repeated KeyValue attributes = 1;
  uint32 dropped_attributes_count = 2;
}
message ResourceLogs {
  Resource resource = 1;
  repeated ScopeLogs scope_logs = 2;
  string schema_url = 3;
}
message ScopeLogs {
  InstrumentationScope scope = 1;
  repeated LogRecord log_records = 2;
  string schema_url = 3;
}
message LogRecord {
  fixed64 time_unix_nano = 1;
  fixed64 observed_time_unix_nano = 11;
  int32 severity_number = 2;
  string severity_text = 3;
  AnyValue body = 5;
  repeated KeyValue attributes = 6;
  uint32 dropped_attributes_count = 7;
  fixed32 flags = 8;
  bytes trace_id = 9;
  bytes span_id = 10;
  string event_name = 12;
}
message ExportLogsServiceRequest { repeated ResourceLogs resource_logs = 1; }
message ExportLogsPartialSuccess {
  int64 rejected_log_records = 1;
  string error_message = 2;
}
message ExportLogsServiceResponse { ExportLogsPartialSuccess partial_success = 1; }
message Any {
  string type_url = 1;
  bytes value = 2;
}
message Status {
  int32 code = 1;
  string message = 2;
  repeated Any details = 3;
}
`;

const root = protobuf.parse(SCHEMA, { keepCase: false }).root;
const type = (name: string) => root.lookupType(`opentelemetry.proto.${name}`);

export const ExportLogsServiceRequest = type('ExportLogsServiceRequest');
export const ExportLogsServiceResponse = type('ExportLogsServiceResponse');
export const RpcStatus = type('Status');

/** The gRPC method the collector's `otlp` exporter and the SDKs call. */
export const EXPORT_METHOD = '/opentelemetry.proto.collector.logs.v1.LogsService/Export';
