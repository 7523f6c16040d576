/**
 * The narrow seam between the log store and a ClickHouse engine. The embedded default is chDB
 * in-process (chdb-executor.ts); a ClickHouse server over HTTP can implement the same four calls.
 * Parameters use ClickHouse's server-side binding ({name:Type}), never string concatenation.
 */
export type SqlParams = Record<string, unknown>;

/**
 * Rows for one insert: one buffer, or several sent one after another (the requests that a group
 * commit joins; a ClickHouse server receives them as one body without their being copied together).
 */
export type InsertPayload = Buffer | readonly Buffer[];

/**
 * The payload as one buffer, for an engine that takes only that. Given `target` (at least the
 * payload's length, a pooled buffer for instance), several parts are copied into it and the view
 * they fill is returned; without it they are joined into a new buffer.
 */
export function payloadBytes(payload: InsertPayload, target?: Buffer): Buffer {
  if (Buffer.isBuffer(payload)) return payload;
  if (!target) return payload.length === 1 ? payload[0] : Buffer.concat(payload);
  let offset = 0;
  for (const part of payload) offset += part.copy(target, offset);
  return target.subarray(0, offset);
}

export interface RowsOptions {
  /**
   * Abandons the query: a query not yet started never starts, a ClickHouse server stops one under
   * way; the embedded engine cannot stop one under way (the promise rejects at once, the engine
   * finishes in the background).
   */
  signal?: AbortSignal;
  /**
   * A long read (one over a range of lines: the viewer's analysis, its timeline and menus, usage)
   * that must not hold up the rest.
   * The embedded engine runs bound queries one at a time on its main connection, inserts included:
   * measured over 1 M lines, an ingest request waited 1.9 s behind a fields sidebar and 6 s behind
   * log patterns. Apart, the query runs on a connection of its own, as streamed reads do, and
   * inserts and searches go on beside it. A ClickHouse server runs every request apart anyway.
   */
  apart?: boolean;
}

export interface SqlExecutor {
  /** Runs a statement that returns nothing useful (DDL, mutations). */
  exec(sql: string, params?: SqlParams): Promise<void>;
  /** Runs a query and returns all rows, decoded from JSONEachRow. */
  rows<T>(sql: string, params?: SqlParams, options?: RowsOptions): Promise<T[]>;
  /** Runs a query and yields rows chunk by chunk, so callers can stream before the end; `signal` stops it. */
  stream<T>(sql: string, params?: SqlParams, signal?: AbortSignal): AsyncIterable<T[]>;
  /**
   * Runs a query of one String column and returns its values, one a line, as a gzip file
   * (`level` 1 to 9). The embedded engine compresses them itself; over HTTP they are compressed here.
   */
  gzipLines(sql: string, params: SqlParams, level: number): Promise<Buffer>;
  /** Inserts TabSeparated rows of the named columns; resolves once the engine has written them. */
  insertTabSeparated(table: string, columns: readonly string[], payload: InsertPayload): Promise<void>;
  close(): Promise<void>;
}
