/**
 * Inserts encoded rows into a fresh chDB table of a given design, in this process, and counts the
 * CPU of the whole process (chDB runs in it: its insert, merge and fsync threads count) while the
 * inserts run and then until background merges settle.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openChdbExecutor } from '../../src/store/chdb-executor.js';
import type { SqlExecutor } from '../../src/store/executor.js';
import { INSERT_COLUMNS } from '../../src/store/row-encoding.js';
import { LOGS_TABLE } from '../../src/store/schema.js';
import { LINES_PER_BODY, ingestBodies, ownCpuMicros, ownRssMiB } from './common.js';
import { nodePipeline } from './node-stages.js';
import { type TableDesign, createTable } from './table.js';

export interface EngineRun {
  rows: number;
  inserts: number;
  insertSeconds: number;
  /** CPU while the inserts ran, per row, µs. */
  insertMicrosPerRow: number;
  /** CPU from the last insert until merges settled, per row, µs. */
  settleMicrosPerRow: number;
  settleSeconds: number;
  /** The process's CPU per second while idle before the inserts (background threads), µs. */
  idleMicrosPerSecond: number;
  partsAfterInserts: number;
  partsSettled: number;
  bytesOnDisk: number;
  maxRssMiB: number;
}

export async function partsAndMerges(executor: SqlExecutor): Promise<{ parts: number; merges: number; bytes: number }> {
  const [row] = await executor.rows<{ parts: string; merges: string; bytes: string }>(
    `SELECT count() AS parts, sum(bytes_on_disk) AS bytes,
            (SELECT count() FROM system.merges WHERE database = currentDatabase() AND table = '${LOGS_TABLE}') AS merges
       FROM system.parts WHERE database = currentDatabase() AND table = '${LOGS_TABLE}' AND active`,
  );
  return { parts: Number(row.parts), merges: Number(row.merges), bytes: Number(row.bytes) };
}

/** Waits until no merge runs and the part count holds for `quietSeconds`; at most `limitSeconds`. */
export async function settle(executor: SqlExecutor, quietSeconds = 3, limitSeconds = 180): Promise<void> {
  const began = performance.now();
  let last = -1;
  let quietSince = performance.now();
  while ((performance.now() - began) / 1000 < limitSeconds) {
    const { parts, merges } = await partsAndMerges(executor);
    if (merges > 0 || parts !== last) {
      last = parts;
      quietSince = performance.now();
    } else if ((performance.now() - quietSince) / 1000 >= quietSeconds) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * bench/ingest's bodies (`rows` lines) through the real Node stages into encoded rows, grouped
 * `bodiesPerInsert` bodies to an insert as the group commit groups concurrent requests (8 with
 * bench/ingest's 8 connections).
 */
export async function insertPayloads(rows: number, bodiesPerInsert: number): Promise<{ payloads: Buffer[]; counts: number[] }> {
  const { bodies, hostnames } = ingestBodies(Math.ceil(rows / LINES_PER_BODY));
  const pipeline = await nodePipeline();
  const perBody: Buffer[] = [];
  await pipeline.run(bodies, hostnames, (encoded) => perBody.push(encoded));
  await pipeline.close();
  bodies.length = 0;
  const payloads: Buffer[] = [];
  const counts: number[] = [];
  for (let at = 0; at < perBody.length; at += bodiesPerInsert) {
    const group = perBody.slice(at, at + bodiesPerInsert);
    payloads.push(Buffer.concat(group));
    counts.push(group.length * LINES_PER_BODY);
  }
  return { payloads, counts };
}

export interface EngineRunOptions {
  /** SYSTEM STOP MERGES before inserting: the insert's own cost, without merges. */
  stopMerges?: boolean;
  /** Keep the table: called with the executor before it closes. */
  after?: (executor: SqlExecutor, dir: string) => Promise<void>;
}

export async function engineRun(design: TableDesign, payloads: Buffer[], rowsPerPayload: number[], options: EngineRunOptions = {}): Promise<EngineRun> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-cost-engine-'));
  const executor = await openChdbExecutor(dir);
  let maxRss = 0;
  const sampler = setInterval(() => (maxRss = Math.max(maxRss, ownRssMiB())), 200);
  try {
    await executor.exec(createTable(design));
    if (options.stopMerges) await executor.exec(`SYSTEM STOP MERGES ${LOGS_TABLE}`);
    const idleStart = ownCpuMicros();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const idleMicrosPerSecond = ownCpuMicros() - idleStart;

    const rows = rowsPerPayload.reduce((sum, n) => sum + n, 0);
    const cpu0 = ownCpuMicros();
    const t0 = performance.now();
    for (const payload of payloads) await executor.insertTabSeparated(LOGS_TABLE, INSERT_COLUMNS, payload);
    const t1 = performance.now();
    const cpu1 = ownCpuMicros();
    const { parts: partsAfterInserts } = await partsAndMerges(executor);
    if (!options.stopMerges) await settle(executor);
    const t2 = performance.now();
    const cpu2 = ownCpuMicros();
    const { parts: partsSettled, bytes } = await partsAndMerges(executor);
    await options.after?.(executor, dir);
    return {
      rows,
      inserts: payloads.length,
      insertSeconds: (t1 - t0) / 1000,
      insertMicrosPerRow: (cpu1 - cpu0) / rows,
      settleMicrosPerRow: options.stopMerges ? 0 : (cpu2 - cpu1) / rows,
      settleSeconds: (t2 - t1) / 1000,
      idleMicrosPerSecond,
      partsAfterInserts,
      partsSettled,
      bytesOnDisk: bytes,
      maxRssMiB: Math.round(Math.max(maxRss, ownRssMiB())),
    };
  } finally {
    clearInterval(sampler);
    await executor.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
