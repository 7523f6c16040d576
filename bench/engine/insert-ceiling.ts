/**
 * The storage engine's own insert ceiling: the benchmark's rows inserted straight into chDB with
 * Logstead's schema and row encoding, no HTTP and no JSON, so nothing but the engine spends CPU.
 * It bounds what the ingest path can reach on this machine (docs/performance.md).
 *
 *   node dist/bench/engine/insert-ceiling.js            every variant, median of 3 runs each
 *   node dist/bench/engine/insert-ceiling.js --rows 480000 --batch 8000 --concurrent 1 [--no-index]
 *        [--table-settings merge_selector_base=10] [--settle] [--memory] [--engine-args="--a=1 --b=2"]
 *
 * A run reports rows/s over its inserts and the CPU of the whole process (inserts and the merges
 * they start) divided by rows; with --settle, also that CPU once the merges have settled after the
 * last insert, and the parts left then (what searches open).
 *
 * With --memory it measures the engine's own resident memory under the load instead of holding
 * every row in memory first: each batch is made and encoded while the previous one is written
 * (the insert runs off the main thread), so the process holds two batches at most, and the RSS is
 * sampled every 100 ms. Its peak is the floor of a server's peak at that insert size: the engine's
 * library and its memory, Node's runtime, and no HTTP, no parsing and no lines in flight. Every
 * tenth insert it also reads the memory the engine tracks for its running merges.
 * The engine's allocator (jemalloc) reads JE_MALLOC_CONF from the environment.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { openChdbExecutor } from '../../src/store/chdb-executor.js';
import type { StoredLine } from '../../src/store/types.js';
import { INSERT_COLUMNS, encodeRows } from '../../src/store/row-encoding.js';
import { migrateLogStore } from '../../src/store/migrations.js';
import { LOGS_TABLE, TEXT_INDEX } from '../../src/store/schema.js';
import { logTables } from '../../src/store/tables.js';
import { rssMiB } from '../lib/rss.js';
import { median } from '../lib/stats.js';
import { lineGenerator } from '../lib/synthetic-lines.js';

interface RunResult {
  rowsPerSecond: number;
  cpuMicrosPerRow: number;
  /** With --settle: the CPU until background merges have settled too, and the parts left then. */
  settledCpuMicrosPerRow?: number;
  activeParts?: number;
  /** With --memory: resident memory (MiB) before the first insert, and its peak and median during the run. */
  idleRssMiB?: number;
  peakRssMiB?: number;
  medianRssMiB?: number;
  /** With --memory: the highest V8 heap (committed) and external memory of the process, the rows' generator's share. */
  peakHeapMiB?: number;
  peakExternalMiB?: number;
  /** With --memory: the memory the engine tracks for its running merges (system.merges), its peak and mean over the run. */
  peakMergeMiB?: number;
  meanMergeMiB?: number;
}

interface RunOptions {
  /** The log table's settings changed for this run (`merge_selector_base=10,...`). */
  tableSettings: string;
  /** Wait for merges to settle after the last insert and count their CPU too. */
  settle: boolean;
  /** Make each batch while the previous one is written, and sample the RSS (--memory). */
  memory: boolean;
  /** More of the engine's settings, as command-line arguments (`--background_pool_size=1`). */
  engineArgs: string[];
}

function syntheticRows(count: number, first = 0, generator = lineGenerator(7), start = Date.now()): StoredLine[] {
  return Array.from({ length: count }, (_, at) => {
    const i = first + at;
    const line = generator.next(start + i);
    const meta = line.meta ? JSON.stringify(line.meta) : '';
    return {
      account: 'bench', ts: start + i, id: String(start * 1024 + i), batch_id: `batch-${Math.floor(i / 1000)}`,
      host: generator.host(), app: line.app, level: line.level, env: '', file: '', ip: '', mac: '', tags: [],
      line: line.line, logtype: meta ? 'json' : 'text', fields: meta ? line.line : '', meta, meta_indexed: meta !== '',
      extra: '', size: Buffer.byteLength(line.line),
    };
  });
}

async function oneRun(rows: number, batch: number, concurrent: number, index: boolean, options: RunOptions): Promise<RunResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-engine-'));
  const executor = await openChdbExecutor(dir, { engineArgs: options.engineArgs });
  const rss: number[] = [];
  const mergeMiB: number[] = [];
  let peakHeap = 0;
  let peakExternal = 0;
  let sampler: NodeJS.Timeout | undefined;
  try {
    await migrateLogStore(executor, logTables());
    if (!index) await executor.exec(`ALTER TABLE ${LOGS_TABLE} DROP INDEX ${TEXT_INDEX}`);
    if (options.tableSettings) await executor.exec(`ALTER TABLE ${LOGS_TABLE} MODIFY SETTING ${options.tableSettings}`);
    const idleRss = rssMiB(process.pid);
    let insertAll: () => Promise<void>;
    if (options.memory) {
      // One batch made while the one before it is written: two batches in memory at most.
      const generator = lineGenerator(7);
      const start = Date.now();
      const payloadAt = (at: number) => encodeRows(syntheticRows(Math.min(batch, rows - at), at, generator, start));
      sampler = setInterval(() => {
        rss.push(rssMiB(process.pid));
        const node = process.memoryUsage();
        peakHeap = Math.max(peakHeap, node.heapTotal);
        peakExternal = Math.max(peakExternal, node.external);
      }, 100);
      insertAll = async () => {
        let payload = payloadAt(0);
        for (let at = 0; at < rows; at += batch) {
          const written = executor.insertTabSeparated(LOGS_TABLE, INSERT_COLUMNS, payload);
          if (at + batch < rows) payload = payloadAt(at + batch);
          await written;
          // Every tenth insert, what the running merges hold (read between inserts: the engine runs one query at a time here).
          if ((at / batch) % 10 === 9) {
            const [merges] = await executor.rows<{ bytes: string | number }>('SELECT sum(memory_usage) AS bytes FROM system.merges');
            mergeMiB.push(Number(merges.bytes) / 2 ** 20);
          }
        }
      };
    } else {
      const all = syntheticRows(rows);
      const payloads: Buffer[] = [];
      for (let at = 0; at < rows; at += batch) payloads.push(encodeRows(all.slice(at, at + batch)));
      let next = 0;
      const worker = async () => {
        while (next < payloads.length) await executor.insertTabSeparated(LOGS_TABLE, INSERT_COLUMNS, payloads[next++]);
      };
      insertAll = async () => void (await Promise.all(Array.from({ length: concurrent }, worker)));
    }
    const cpuBefore = process.cpuUsage();
    const began = performance.now();
    await insertAll();
    const seconds = (performance.now() - began) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const result: RunResult = { rowsPerSecond: Math.round(rows / seconds), cpuMicrosPerRow: Number(((cpu.user + cpu.system) / rows).toFixed(1)) };
    if (options.settle) {
      // Settled: no merge running, and the same parts, twice a second apart.
      const state = async () =>
        (await executor.rows<{ parts: string | number; merges: string | number }>(
          `SELECT (SELECT count() FROM system.parts WHERE active AND table = '${LOGS_TABLE}') AS parts, (SELECT count() FROM system.merges) AS merges`,
        ))[0];
      for (let last = ''; ; ) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const now = await state();
        if (Number(now.merges) === 0 && String(now.parts) === last) break;
        last = Number(now.merges) === 0 ? String(now.parts) : '';
      }
      const settled = process.cpuUsage(cpuBefore);
      result.settledCpuMicrosPerRow = Number(((settled.user + settled.system) / rows).toFixed(1));
      result.activeParts = Number((await state()).parts);
    }
    if (options.memory) {
      result.idleRssMiB = Math.round(idleRss);
      result.peakRssMiB = Math.round(Math.max(...rss));
      result.medianRssMiB = Math.round(median(rss));
      result.peakHeapMiB = Math.round(peakHeap / 2 ** 20);
      result.peakExternalMiB = Math.round(peakExternal / 2 ** 20);
      result.peakMergeMiB = Math.round(Math.max(0, ...mergeMiB));
      result.meanMergeMiB = Math.round(mergeMiB.reduce((sum, value) => sum + value, 0) / Math.max(1, mergeMiB.length));
    }
    return result;
  } finally {
    clearInterval(sampler);
    await executor.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const VARIANTS = [
  { label: 'text index, one insert at a time', args: ['--concurrent', '1'] },
  { label: 'text index, two inserts at once', args: ['--concurrent', '2'] },
  { label: 'text index, 48,000-row inserts', args: ['--batch', '48000'] },
  { label: 'no text index, one insert at a time', args: ['--no-index'] },
  { label: 'no text index, two inserts at once', args: ['--no-index', '--concurrent', '2'] },
];

async function main() {
  const { values } = parseArgs({
    options: {
      rows: { type: 'string' },
      batch: { type: 'string', default: '8000' },
      concurrent: { type: 'string', default: '1' },
      'no-index': { type: 'boolean', default: false },
      'table-settings': { type: 'string', default: '' },
      settle: { type: 'boolean', default: false },
      memory: { type: 'boolean', default: false },
      'engine-args': { type: 'string', default: '' },
      runs: { type: 'string', default: '3' },
    },
  });
  if (values.rows) {
    const result = await oneRun(Number(values.rows), Number(values.batch), Number(values.concurrent), !values['no-index'], {
      tableSettings: values['table-settings'],
      settle: values.settle,
      memory: values.memory,
      engineArgs: values['engine-args'].split(' ').filter(Boolean),
    });
    console.log(JSON.stringify(result));
    return;
  }
  // Each run in a fresh process, so one run's merges and memory do not bill the next.
  const script = fileURLToPath(import.meta.url);
  console.log(`engine insert ceiling: 480,000 rows per run, median of ${values.runs}; ${os.cpus().length} cores, Node ${process.version}`);
  console.log('| variant | rows/s | CPU per row |\n|---|---:|---:|');
  for (const variant of VARIANTS) {
    const results: RunResult[] = [];
    for (let run = 0; run < Number(values.runs); run++) {
      const child = spawnSync(process.execPath, [script, '--rows', '480000', ...variant.args], { encoding: 'utf8' });
      if (child.status !== 0) throw new Error(`${variant.label}: ${child.stderr}`);
      results.push(JSON.parse(child.stdout.trim().split('\n').pop()!));
    }
    const rate = median(results.map((result) => result.rowsPerSecond));
    const cpu = median(results.map((result) => result.cpuMicrosPerRow));
    console.log(`| ${variant.label} | ${rate.toLocaleString('en')} | ${cpu.toFixed(1)} µs |`);
  }
}

await main();
