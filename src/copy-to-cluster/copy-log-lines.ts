import type { SqlExecutor } from '../store/executor.js';
import { countStoredLines, idsBetween, lastPosition, linesAfter, type StoredPosition } from '../store/line-scan.js';
import type { LogStore } from '../store/log-store.js';
import { encodeRows } from '../store/row-encoding.js';
import type { LogTables } from '../store/tables.js';
import type { StoredLine } from '../store/types.js';

/**
 * Copies every line of one log store into another, in batches read in the table's order
 * (account, ts, id) and written through the target store's own insert, as the same
 * TabSeparated rows ingest writes: each line keeps its id, time, text and meta exactly.
 *
 * A copy that stopped half way (a failed insert, a lost connection) can simply be run again: the
 * target's last line in that order marks how far it got, and up to there each batch leaves out
 * the lines the target already has (an insert that failed may have written some of its days and
 * not others); past it, batches are written whole.
 */

export interface LogSide {
  executor: SqlExecutor;
  tables: LogTables;
}

export interface LogCopyProgress {
  /** Lines the target has now, of the source's `total`. */
  done: number;
  total: number;
  /** Lines found already in the target (from an earlier, unfinished copy) and not written again. */
  alreadyThere: number;
}

export interface LogCopyOptions {
  batchLines: number;
  /** Called after each batch. */
  onBatch?: (progress: LogCopyProgress) => void | Promise<void>;
}

const positionOf = (line: StoredLine): StoredPosition => ({ account: line.account, ts: line.ts, id: line.id });

/** The table's order: account as the engine compares strings (bytes), then time, then id. */
function compare(a: StoredPosition, b: StoredPosition): number {
  return Buffer.compare(Buffer.from(a.account), Buffer.from(b.account)) || a.ts - b.ts || Number(BigInt(a.id) - BigInt(b.id));
}

export async function copyLogLines(source: LogSide, target: LogSide & { store: LogStore }, options: LogCopyOptions): Promise<LogCopyProgress> {
  const total = await countStoredLines(source.executor, source.tables);
  // Lines the target holds already lie at or before this position; none after it.
  const reachedBefore = await lastPosition(target.executor, target.tables);
  const progress: LogCopyProgress = { done: 0, total, alreadyThere: 0 };
  let after: StoredPosition | undefined;
  for (;;) {
    const batch = await linesAfter(source.executor, source.tables, after, options.batchLines);
    if (batch.length === 0) break;
    const first = positionOf(batch[0]);
    const last = positionOf(batch[batch.length - 1]);
    let missing = batch;
    if (reachedBefore && compare(first, reachedBefore) <= 0) {
      const present = await idsBetween(target.executor, target.tables, first, last);
      missing = batch.filter((line) => !present.has(line.id));
    }
    if (missing.length > 0) await target.store.insert(encodeRows(missing));
    progress.done += batch.length;
    progress.alreadyThere += batch.length - missing.length;
    after = last;
    await options.onBatch?.({ ...progress });
  }
  return progress;
}
