import type { SqlParams } from './executor.js';

/*
 * Types the store shares with the layers above it: ingest writes StoredLine rows, the viewer, export,
 * tail and alerts read them, and query compiles searches to a SqlCondition that the store runs.
 * This file imports nothing but executor.ts, so every layer can import it downward.
 */

/** One stored line, as written to and read from the log table. */
export interface StoredLine {
  account: string;
  /** Unix milliseconds. */
  ts: number;
  /** Decimal text: ids are 64-bit in the store. */
  id: string;
  batch_id: string;
  host: string;
  app: string;
  level: string;
  env: string;
  file: string;
  ip: string;
  mac: string;
  tags: string[];
  line: string;
  logtype: string;
  /** JSON text of the fields parsed from a JSON line, or ''. */
  fields: string;
  /** JSON text of the line's meta, or ''. */
  meta: string;
  /** False when meta broke the per-organisation type rule and is kept only as text. */
  meta_indexed: boolean;
  /**
   * Why meta is not indexed, recorded at ingest: 'type-conflict', 'daily-cap', 'too-large' or
   * 'not-an-object'; '' when indexed or without meta, and for lines stored before it was recorded.
   */
  meta_note?: string;
  /** JSON text of rarer source fields (pid, prival, containerid, labels), or ''. */
  extra: string;
  size: number;
}

/**
 * What one request stored, for whoever hears of it (metrics, live tail, alerts). The rows come
 * along only when something reads the lines themselves; otherwise a request keeps just these counts
 * while its write runs, and its lines can be collected young.
 */
export interface StoredBatch {
  /** The way the lines came in (ingest's IngestProtocol), for the per-protocol metrics. */
  protocol: string;
  lines: number;
  /** The lines' text in UTF-8: the sum of their `size`. */
  bytes: number;
  /** Lines whose meta was not indexed, by their `meta_note`. */
  unindexedMeta: Record<string, number>;
  rows?: StoredLine[];
}

/** A WHERE condition over the log table, with its bound parameters. */
export interface SqlCondition {
  sql: string;
  params: SqlParams;
  /** False when the text index alone decides the condition, so no line is read to test it. */
  readsLines: boolean;
  /**
   * Set when the condition tests word prefixes, each expanded to the text index's tokens that
   * start with it by a subquery inside `sql`. A store that runs `tokensSql` for each word first
   * (given the placeholder of the word's bound parameter; one token a row) gets from `expanded`
   * the same condition with those tokens bound, which the engine plans faster.
   */
  prefixes?: {
    words: string[];
    tokensSql(prefixPlaceholder: string): string;
    expanded(tokens: ReadonlyMap<string, string[]>): SqlCondition;
  };
}
