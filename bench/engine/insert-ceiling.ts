/**
 * The storage engine's own insert ceiling: the benchmark's rows inserted straight into chDB with
 * Logstead's schema and row encoding, no HTTP and no JSON, so nothing but the engine spends CPU.
 * It bounds what the ingest path can reach on this machine (docs/performance.md).
 *
 *   node dist/bench/engine/insert-ceiling.js            every variant, median of 3 runs each
 *   node dist/bench/engine/insert-ceiling.js --rows 480000 --batch 8000 --concurrent 1 [--no-index]
 *        [--table-settings merge_selector_base=10] [--settle]
 *
 * A run reports rows/s over its inserts and the CPU of the whole process (inserts and the merges
 * they start) divided by rows; with --settle, also that CPU once the merges have settled after the
 * last insert, and the parts left then (what searches open).
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
import { median } from '../lib/stats.js';
import { lineGenerator } from '../lib/synthetic-lines.js';

interface RunResult {
  rowsPerSecond: number;
  cpuMicrosPerRow: number;
  /** With --settle: the CPU until background merges have settled too, and the parts left then. */
  settledCpuMicrosPerRow?: number;
  activeParts?: number;
}

interface RunOptions {
  /** The log table's settings changed for this run (`merge_selector_base=10,...`). */
  tableSettings: string;
  /** Wait for merges to settle after the last insert and count their CPU too. */
  settle: boolean;
}

function syntheticRows(count: number): StoredLine[] {
  const generator = lineGenerator(7);
  const start = Date.now();
  return Array.from({ length: count }, (_, i) => {
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
  const executor = await openChdbExecutor(dir);
  try {
    await migrateLogStore(executor, logTables());
    if (!index) await executor.exec(`ALTER TABLE ${LOGS_TABLE} DROP INDEX ${TEXT_INDEX}`);
    if (options.tableSettings) await executor.exec(`ALTER TABLE ${LOGS_TABLE} MODIFY SETTING ${options.tableSettings}`);
    const all = syntheticRows(rows);
    const payloads: Buffer[] = [];
    for (let at = 0; at < rows; at += batch) payloads.push(encodeRows(all.slice(at, at + batch)));
    const cpuBefore = process.cpuUsage();
    const began = performance.now();
    let next = 0;
    const worker = async () => {
      while (next < payloads.length) await executor.insertTabSeparated(LOGS_TABLE, INSERT_COLUMNS, payloads[next++]);
    };
    await Promise.all(Array.from({ length: concurrent }, worker));
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
    return result;
  } finally {
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
      runs: { type: 'string', default: '3' },
    },
  });
  if (values.rows) {
    const result = await oneRun(Number(values.rows), Number(values.batch), Number(values.concurrent), !values['no-index'], {
      tableSettings: values['table-settings'],
      settle: values.settle,
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
