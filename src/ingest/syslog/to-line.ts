import { FACILITY_NAMES, SEVERITY_LEVELS, type SyslogMessage } from './message.js';

/** Mezmo's private enterprise number: its structured-data element carries the ingestion key and tags. */
export const MEZMO_SD_ID = 'logdna@48950';

/** A syslog message as the intake takes a line, with what its `logdna@48950` element said. */
export interface SyslogLine {
  /** The ingestion key the message carries, or undefined when it carries none. */
  key: string | undefined;
  /** The `tags` parameter, split as the HTTP query's `tags` is. */
  tags: string[];
  /** The line object as /logs/ingest takes one. */
  line: Record<string, unknown>;
}

/** Comma-separated, as the HTTP API's `tags` query parameter. */
export function splitTags(value: string): string[] {
  return value
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
}

/**
 * Maps a message onto a line: HOSTNAME → host, APP-NAME → app, severity → level, PROCID → pid,
 * TIMESTAMP → the line's time (the receive time when it has none), MSG → the line (a JSON message
 * is parsed as /logs/ingest parses one). MSGID, the facility and the other structured data go to
 * meta (each element an object of its parameters); the `logdna@48950` element is never stored.
 */
export function syslogLine(message: SyslogMessage): SyslogLine {
  let key: string | undefined;
  let tags: string[] = [];
  let meta: Record<string, unknown> | undefined;
  for (const element of message.structuredData) {
    if (element.id === MEZMO_SD_ID) {
      for (const [name, value] of element.params) {
        if (name === 'key') key = value;
        else if (name === 'tags') tags = tags.concat(splitTags(value));
      }
      continue;
    }
    const params: Record<string, string | string[]> = {};
    for (const [name, value] of element.params) {
      const earlier = params[name];
      params[name] = earlier === undefined ? value : Array.isArray(earlier) ? [...earlier, value] : [earlier, value];
    }
    (meta ??= {})[element.id] = params;
  }
  if (message.msgId) (meta ??= {}).msgid = message.msgId;
  if (message.facility !== undefined) (meta ??= {}).facility = FACILITY_NAMES[message.facility];

  const line: Record<string, unknown> = { line: message.msg };
  if (message.hostname) line.host = message.hostname;
  if (message.appName) line.app = message.appName;
  if (message.severity !== undefined) line.level = SEVERITY_LEVELS[message.severity];
  if (message.time !== undefined) line.timestamp = message.time;
  if (message.procId) line.pid = /^\d{1,15}$/.test(message.procId) ? Number(message.procId) : message.procId;
  if (meta) line.meta = meta;
  return { key, tags, line };
}
