import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Session } from 'chdb';
import { type RowsOptions, type SqlExecutor, type SqlParams, payloadBytes } from './executor.js';
import { ingestBuffers } from '../lib/buffer-pool.js';
import { keepToOwner } from '../lib/owner-only.js';

/** How many sessions may stream results at once; a chDB session holds one stream at a time. */
const MAX_STREAM_SESSIONS = 4;

/**
 * Engine settings for every session (they are per session). The largest search allowed (200
 * terms, query/parser.ts) compiles to over a megabyte of SQL in the facet queries, past the
 * engine's 256 KiB parser limit and near its AST size limits.
 */
export const ENGINE_ARGS = ['--max_query_size=16777216', '--max_ast_elements=10000000', '--max_expanded_ast_elements=10000000'];

/**
 * BACKUP and RESTORE need the engine told where backups may go, once, when it opens; the place is
 * the operator's choice at backup time (`logstead backup <dir>`), so any path is allowed. This
 * grants nothing SQL could not already do: the embedded engine's file() writes anywhere the
 * process may, and Logstead never runs SQL it did not write.
 */
const BACKUPS_ANYWHERE = '--backups.allowed_path=/';

/**
 * The engine's own allocator (jemalloc, linked inside libchdb.so) reads JE_MALLOC_CONF once, when
 * the library loads, on top of the engine's built-in settings (one arena per CPU, freed pages kept
 * 5 s). One arena shared by the engine's threads kept 10-70 MiB less under a fleet's inserts at the
 * same CPU (docs/performance.md, "Memory under the fleet"). An operator's own JE_MALLOC_CONF wins.
 */
export const ENGINE_ALLOCATOR_SETTINGS = 'percpu_arena:disabled,narenas:1';

/**
 * The engine's caches that searches fill hold together at most LOGSTEAD_ENGINE_CACHE_BYTES, by
 * default 256 MiB. Left to themselves they would grow, on a server searched for weeks, towards
 * the engine's defaults: 5 GiB each for the column marks, the primary index and the skip indexes'
 * marks, and 1-2 GiB each for the text index's caches, over 19 GiB in all, in the same process
 * as everything else (issue 42). bench/search's searches over 10 M lines leave under 2 MiB in
 * them (it prints them), so the bound costs a search nothing until a store is far larger.
 * The shares are sixteenths of the whole: the marks and the text index's token dictionaries read
 * by every word search get the most.
 */
export const DEFAULT_ENGINE_CACHE_BYTES = 256 * 2 ** 20;
const ENGINE_CACHE_SHARES: Record<string, number> = {
  mark_cache_size: 4,
  text_index_tokens_cache_size: 4,
  text_index_header_cache_size: 2,
  text_index_postings_cache_size: 2,
  index_mark_cache_size: 1,
  primary_index_cache_size: 1,
  query_condition_cache_size: 1,
  compiled_expression_cache_size: 1,
};

/** The engine's settings that bound its caches to `bytes` together. */
export function engineCacheArgs(bytes: number): string[] {
  return Object.entries(ENGINE_CACHE_SHARES).map(([setting, share]) => `--${setting}=${Math.floor((bytes * share) / 16)}`);
}

/** chDB, loaded on first use, after the engine's allocator settings are in the environment. */
async function loadChdb(): Promise<typeof import('chdb')> {
  process.env.JE_MALLOC_CONF ??= ENGINE_ALLOCATOR_SETTINGS;
  return import('chdb');
}

/**
 * ClickHouse in-process through chDB. All calls run on libuv's pool, off the event loop.
 * Sessions opened on the same path share one engine, so extra sessions are cheap; they exist only
 * because chDB allows one active result stream per session.
 */
export async function openChdbExecutor(dir: string, options: { engineArgs?: string[]; cacheBytes?: number } = {}): Promise<SqlExecutor> {
  // The engine's files are its owner's only: the folder here, the files the engine makes through
  // the process's umask (lib/owner-only.ts).
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  keepToOwner(dir);
  const { Session, drainPending } = await loadChdb();
  // The engine is one per process, set up by its first session: these apply from there.
  // options.engineArgs: more of the engine's settings, for bench/engine's experiments.
  const main = new Session(dir, {
    connectionArgs: [
      '--async_load_databases=0',
      BACKUPS_ANYWHERE,
      ...engineCacheArgs(options.cacheBytes ?? DEFAULT_ENGINE_CACHE_BYTES),
      ...ENGINE_ARGS,
      ...(options.engineArgs ?? []),
    ],
  });
  const idleStreamSessions: Session[] = [];
  const allStreamSessions: Session[] = [];
  const waiting: Array<(session: Session) => void> = [];

  async function borrow(): Promise<Session> {
    const idle = idleStreamSessions.pop();
    if (idle) return idle;
    if (allStreamSessions.length < MAX_STREAM_SESSIONS) {
      const session = new Session(dir, { connectionArgs: ENGINE_ARGS });
      allStreamSessions.push(session);
      return session;
    }
    return new Promise((resolve) => waiting.push(resolve));
  }

  function giveBack(session: Session): void {
    const next = waiting.shift();
    if (next) next(session);
    else idleStreamSessions.push(session);
  }

  /** Streamed reads run on a session of their own: the main one is the inserts' and the short reads'. */
  async function* streamRows<T>(sql: string, params: SqlParams = {}, signal?: AbortSignal) {
    const session = await borrow();
    let results: ReturnType<Session['queryStreamBind']> | undefined;
    try {
      signal?.throwIfAborted();
      results = session.queryStreamBind(sql, params, { format: 'JSONEachRow', signal });
      for await (const chunk of results) {
        if (chunk.numRows > 0) yield chunk.rows<T>();
      }
    } finally {
      // Also on a synchronous failure (a bad parameter): the session must always come back.
      if (results && !results.closed) results.cancel();
      giveBack(session);
    }
  }

  return {
    async exec(sql, params = {}) {
      await main.queryBindAsync(sql, params, { format: 'TSV' });
    },

    async rows<T>(sql: string, params: SqlParams = {}, options: RowsOptions = {}) {
      if (options.apart) return collect(streamRows<T>(sql, params, options.signal));
      // chDB runs bound queries one after another, process-wide: an abandoned one still queued is dropped there.
      const text = (await main.queryBindAsync(sql, params, { format: 'JSONEachRow', signal: options.signal })).text();
      if (!text) return [];
      return text
        .split('\n')
        .filter((line) => line.length > 0)
        .map((line) => JSON.parse(line) as T);
    },

    stream: streamRows,

    async gzipLines(sql, params, level) {
      // The engine writes the gzip file itself (INTO OUTFILE): no row becomes a JavaScript value.
      // In a directory of this process's own (mode 0700), removed at once: the lines are an organisation's.
      const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-gzip-'));
      const file = path.join(scratch, 'lines.gz');
      try {
        await main.queryBindAsync(`${sql} INTO OUTFILE '${file}' TRUNCATE COMPRESSION 'gzip' LEVEL ${Math.trunc(level)} FORMAT TSVRaw`, params, { format: 'TSV' });
        return fs.readFileSync(file);
      } finally {
        fs.rmSync(scratch, { recursive: true, force: true });
      }
    },

    async insertTabSeparated(table, columns, payload) {
      // The requests a group commit joins, copied into one pooled buffer that the next insert takes
      // again (lib/buffer-pool.ts): the engine reads it in place and is done with it on return.
      const joined = Buffer.isBuffer(payload) ? undefined : ingestBuffers.take(payload.reduce((sum, part) => sum + part.length, 0));
      try {
        await main.insert({ table, columns: [...columns], values: payloadBytes(payload, joined), format: 'TabSeparated' });
      } finally {
        if (joined) ingestBuffers.give(joined);
      }
    },

    async close() {
      await drainPending();
      for (const session of allStreamSessions) session.close();
      main.close();
      await drainPending();
    },
  };
}

/** Every row a stream yields, in order. */
async function collect<T>(chunks: AsyncIterable<T[]>): Promise<T[]> {
  const rows: T[] = [];
  for await (const chunk of chunks) for (const row of chunk) rows.push(row);
  return rows;
}
