import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { type ClickHouseSettings, ClickHouseLogLevel, createClient } from '@clickhouse/client';
import type { RowsOptions, SqlExecutor, SqlParams } from './executor.js';

/**
 * Settings every statement carries, the server twins of chdb-executor.ts's SESSION_ARGS: the
 * largest search (200 terms) compiles to over a megabyte of SQL, past a server's 256 KiB default.
 */
const QUERY_LIMITS: ClickHouseSettings = {
  max_query_size: '16777216',
  max_ast_elements: '10000000',
  max_expanded_ast_elements: '10000000',
};

/**
 * A statement's whole result before its status: a failure then arrives as an HTTP error, never as
 * a 200 whose body stops half way. Streamed reads go without it, so export starts at once.
 */
const WHOLE_RESULT: ClickHouseSettings = { wait_end_of_query: 1 };

/**
 * An insert is acknowledged only once it is on disk: never buffered server-side (async_insert),
 * and on a cluster written through the Distributed table to its shard at once (not queued for
 * later) and on a majority of that shard's replicas (insert_quorum 'auto').
 */
const durableInsert = (cluster: boolean): ClickHouseSettings => ({
  ...WHOLE_RESULT,
  async_insert: 0,
  ...(cluster ? { distributed_foreground_insert: 1, insert_quorum: 'auto' } : {}),
});

export interface ClickHouseExecutorOptions {
  /** http(s)://user:password@host:8123/database (LOGSTEAD_CLICKHOUSE_URL). */
  url: string;
  /** Set when the tables live ON CLUSTER (LOGSTEAD_CLICKHOUSE_CLUSTER). */
  cluster?: string;
}

/**
 * A ClickHouse server over its HTTP interface, through the official client. Parameters travel as
 * the server's own {name:Type} bindings (param_* in the request), never inside the SQL text.
 */
export async function openClickHouseExecutor(options: ClickHouseExecutorOptions): Promise<SqlExecutor> {
  const client = createClient({
    url: options.url,
    // Long enough for a rebuild of the token index (MATERIALIZE INDEX ... mutations_sync = 2).
    request_timeout: 3_600_000,
    compression: { request: false, response: false },
    // The largest searches bind tens of kilobytes of parameters: past 4 KiB they go in a
    // multipart body, as URLs that long are refused by proxies on the way.
    use_multipart_params_auto: true,
    clickhouse_settings: QUERY_LIMITS,
    // Errors reach the caller as exceptions; the client's own console logging would repeat them.
    log: { level: ClickHouseLogLevel.OFF },
  });
  const insertSettings = durableInsert(options.cluster !== undefined);
  // Fails now, with the server's own reason (bad password, unknown database), not at first use.
  await client.command({ query: 'SELECT 1', clickhouse_settings: WHOLE_RESULT });

  return {
    async exec(sql, params = {}) {
      await client.command({ query: sql, query_params: params, clickhouse_settings: WHOLE_RESULT });
    },

    // Every request is apart here: the server runs them side by side.
    async rows<T>(sql: string, params: SqlParams = {}, options: RowsOptions = {}) {
      // Abandoned, the request is closed, and the server stops a read whose client went away.
      const settings = options.signal ? { ...WHOLE_RESULT, cancel_http_readonly_queries_on_client_close: 1 as const } : WHOLE_RESULT;
      const result = await client.query({ query: sql, query_params: params, format: 'JSONEachRow', clickhouse_settings: settings, abort_signal: options.signal });
      return result.json<T>();
    },

    async *stream<T>(sql: string, params: SqlParams = {}, signal?: AbortSignal) {
      const result = await client.query({ query: sql, query_params: params, format: 'JSONEachRow', abort_signal: signal });
      const stream = result.stream<T>();
      try {
        for await (const rows of stream) {
          if (rows.length > 0) yield rows.map((row) => row.json<T>());
        }
      } finally {
        // A reader that stops early (limit reached, client gone) must free the connection: closing
        // the result set destroys the response itself, not only the row stream over it.
        if (!stream.readableEnded) result.close();
      }
    },

    async gzipLines(sql, params, level) {
      // The lines come as text (TSVRaw: no quoting, no per-row parsing here) and are compressed as they arrive.
      const result = await client.exec({ query: `${sql} FORMAT TSVRaw`, query_params: params });
      const compressed: Buffer[] = [];
      await pipeline(result.stream, createGzip({ level }), async (gzipped: AsyncIterable<Buffer>) => {
        for await (const chunk of gzipped) compressed.push(chunk);
      });
      return Buffer.concat(compressed);
    },

    async insertTabSeparated(table, columns, payload) {
      await client.insert({ table, columns: [...columns] as [string, ...string[]], values: Readable.from(Buffer.isBuffer(payload) ? [payload] : payload, { objectMode: false }), format: 'TabSeparated', clickhouse_settings: insertSettings });
    },

    async close() {
      await client.close();
    },
  };
}
