import { type ParsedLine, isoTimestampAt, numberOrText, setField } from './parsed.js';

/** The request types that start an ALB access log entry. */
const ALB_TYPES = new Set(['http', 'https', 'h2', 'grpcs', 'ws', 'wss']);

/**
 * ALB's fields after `type time elb`, in AWS's documented order; null where a field is split
 * or read on its own. Quoted fields are read without their quotes.
 */
const ALB_FIELDS: Array<string | null> = [
  null, // client:port
  null, // target:port
  'request_processing_time', 'target_processing_time', 'response_processing_time',
  'elb_status_code', 'target_status_code', 'received_bytes', 'sent_bytes',
  null, // "request"
  'user_agent', 'ssl_cipher', 'ssl_protocol', 'target_group_arn', 'trace_id', 'domain_name', 'chosen_cert_arn',
  'matched_rule_priority', 'request_creation_time', 'actions_executed', 'redirect_url', 'error_reason',
  'target_port_list', 'target_status_code_list', 'classification', 'classification_reason', 'conn_trace_id',
];
const ALB_NUMBERS = new Set(['request_processing_time', 'target_processing_time', 'response_processing_time', 'elb_status_code', 'target_status_code', 'received_bytes', 'sent_bytes', 'matched_rule_priority']);

/** Space-separated tokens, a `"quoted"` one read without its quotes (backslash escapes kept as written); null when a quote never closes. */
function tokens(text: string, from: number, max: number): string[] | null {
  const out: string[] = [];
  let index = from;
  while (index < text.length && out.length < max) {
    if (text[index] === '"') {
      let end = index + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      if (end >= text.length) return null;
      out.push(text.slice(index + 1, end));
      index = end + 2;
    } else {
      let end = text.indexOf(' ', index);
      if (end < 0) end = text.length;
      out.push(text.slice(index, end));
      index = end + 1;
    }
  }
  return out;
}

/** `addr:port` (or `-`) into `<name>_ip` and `<name>_port`. */
function addressAndPort(fields: Record<string, unknown>, name: string, value: string): void {
  if (value === '-' || value === '') return;
  const colon = value.lastIndexOf(':');
  if (colon < 0) return void setField(fields, `${name}_ip`, value);
  setField(fields, `${name}_ip`, value.slice(0, colon));
  setField(fields, `${name}_port`, numberOrText(value.slice(colon + 1)));
}

/** `GET http://host:80/path HTTP/1.1` into `method`, `path` (the URL as ALB writes it) and `protocol`. */
function requestLine(fields: Record<string, unknown>, request: string): void {
  const parts = request.split(' ');
  if (parts.length !== 3) return void setField(fields, 'request', request);
  setField(fields, 'method', parts[0]);
  setField(fields, 'path', parts[1]);
  setField(fields, 'protocol', parts[2]);
}

/**
 * An AWS Application Load Balancer access log entry, as AWS documents its fields
 * (https://docs.aws.amazon.com/elasticloadbalancing/latest/application/load-balancer-access-logs.html):
 * `https 2026-11-28T10:00:00.123456Z app/my-lb/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80 0.086 0.048 0.037 200 200 0 57 "GET https://..." "curl/7.46.0" ...`.
 * Fields keep AWS's names (`-` left out; times in seconds, -1 when the step never happened), plus
 * `status` (the load balancer's status), `method`, `path` and `protocol` as the other access logs
 * name them. `spaceAt` is the index of the first space.
 */
export function parseAlb(text: string, spaceAt: number): ParsedLine | null {
  if (!ALB_TYPES.has(text.slice(0, spaceAt))) return null;
  const time = isoTimestampAt(text, spaceAt + 1);
  if (!time || text[time.end] !== ' ') return null;
  const elbEnd = text.indexOf(' ', time.end + 1);
  if (elbEnd < 0) return null;
  const values = tokens(text, elbEnd + 1, ALB_FIELDS.length);
  if (!values || values.length < 11) return null;
  const fields: Record<string, unknown> = {};
  setField(fields, 'type', text.slice(0, spaceAt));
  setField(fields, 'elb', text.slice(time.end + 1, elbEnd));
  addressAndPort(fields, 'client', values[0]);
  addressAndPort(fields, 'target', values[1]);
  for (let at = 2; at < values.length; at++) {
    const name = ALB_FIELDS[at];
    const value = values[at];
    if (at === 9) requestLine(fields, value);
    if (name === null || value === '-' || value === '') continue;
    setField(fields, name, ALB_NUMBERS.has(name) ? numberOrText(value) : value);
  }
  if (typeof fields.elb_status_code === 'number') setField(fields, 'status', fields.elb_status_code);
  return { logtype: 'alb', fields, ts: time.ms };
}

/**
 * CloudFront's standard log fields (W3C, tab-separated) in AWS's documented order, named as AWS
 * names them with `-`, `(` and `)` as `_` (`cs(User-Agent)` is `cs_user_agent`).
 */
const CLOUDFRONT_FIELDS = [
  'date', 'time', 'x_edge_location', 'sc_bytes', 'c_ip', 'cs_method', 'cs_host', 'cs_uri_stem', 'sc_status', 'cs_referer',
  'cs_user_agent', 'cs_uri_query', 'cs_cookie', 'x_edge_result_type', 'x_edge_request_id', 'x_host_header', 'cs_protocol',
  'cs_bytes', 'time_taken', 'x_forwarded_for', 'ssl_protocol', 'ssl_cipher', 'x_edge_response_result_type',
  'cs_protocol_version', 'fle_status', 'fle_encrypted_fields', 'c_port', 'time_to_first_byte', 'x_edge_detailed_result_type',
  'sc_content_type', 'sc_content_len', 'sc_range_start', 'sc_range_end',
];
const CLOUDFRONT_NUMBERS = new Set(['sc_bytes', 'sc_status', 'cs_bytes', 'time_taken', 'c_port', 'time_to_first_byte', 'sc_content_len', 'sc_range_start', 'sc_range_end']);
/** Values CloudFront writes URL-encoded (its user agent's spaces are %20). */
const URL_ENCODED = new Set(['cs_user_agent', 'cs_referer']);

function decoded(value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * An Amazon CloudFront standard (access) log line, its fields tab-separated in AWS's order
 * (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/standard-logs-reference.html):
 * `2026-11-28\t10:00:00\tLAX1\t392\t192.0.2.100\tGET\td111111abcdef8.cloudfront.net\t/index.html\t200\t...`.
 * The date and time (UTC) are the line's time; `-` is left out; `status`, `method` and `path`
 * repeat `sc_status`, `cs_method` and `cs_uri_stem` as the other access logs name them.
 */
export function parseCloudFront(text: string): ParsedLine | null {
  const newline = text.indexOf('\n');
  const values = (newline < 0 ? text : text.slice(0, newline)).split('\t');
  if (values.length < 15 || values[1].length !== 8) return null;
  const ms = Date.parse(`${values[0]}T${values[1]}Z`);
  if (Number.isNaN(ms)) return null;
  const fields: Record<string, unknown> = {};
  for (let at = 2; at < values.length && at < CLOUDFRONT_FIELDS.length; at++) {
    const name = CLOUDFRONT_FIELDS[at];
    const value = values[at];
    if (value === '-' || value === '') continue;
    setField(fields, name, CLOUDFRONT_NUMBERS.has(name) ? numberOrText(value) : URL_ENCODED.has(name) ? decoded(value) : value);
  }
  if (typeof fields.sc_status === 'number') setField(fields, 'status', fields.sc_status);
  if (fields.cs_method !== undefined) setField(fields, 'method', fields.cs_method);
  if (fields.cs_uri_stem !== undefined) setField(fields, 'path', fields.cs_uri_stem);
  return { logtype: 'cloudfront', fields, ts: ms };
}
