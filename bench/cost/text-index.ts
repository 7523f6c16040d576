/**
 * The text index's cost split (issue 30): what of it is evaluating the indexed expression,
 * tokenising and building posting lists at insert, and rebuilding them in merges; and what the
 * levers the engine offers give.
 *
 *   node dist/bench/cost/text-index.js [--rows 1000000] [--runs 3] [--only name,name]
 *
 * Each variant runs in a fresh process on bench/ingest's rows (encoded by the real Node stages),
 * inserted into chDB with today's columns, codecs and settings, fsync on:
 *
 *   none              no index, merges stopped                 -> the insert
 *   expression        INDEXED_TEXT evaluated (minmax), stopped -> minus none = the expression
 *   text              today's text index, merges stopped       -> minus expression = tokens + postings
 *   text-lowered      the index over lower(SEARCH_TEXT), stopped (no non-ASCII pass) -> its share
 *   none-merged       no index, merges on until they settle
 *   text-merged       today's design, merges on                -> merges' index share
 *   text-merged-48k   the same in 48,000-row inserts           -> larger parts before the first merge
 *   text-merged-min10 min_parts_to_merge_at_once = 10          -> fewer, wider merges
 *
 * Also, in this process: what tokenising the same rows in JavaScript would cost (a line is in hand
 * there), for the "tokens computed in Node" lever. Prints medians of --runs runs and writes
 * bench/results/text-index-<date>.json.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from '../lib/stats.js';
import { machine, machineLoad } from './common.js';
import { type EngineRun, engineRun, insertPayloads } from './engine-run.js';
import type { TableDesign } from './table.js';

const { values: options } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '3' },
    only: { type: 'string' },
    variant: { type: 'string' },
  },
});
const ROWS = Number(options.rows);
const RUNS = Number(options.runs);
const root = fileURLToPath(new URL('../../../', import.meta.url));

interface Variant {
  design: TableDesign;
  stopMerges: boolean;
  /** 1,000-line bodies per insert: 8 is what bench/ingest's 8 connections give the group commit. */
  bodiesPerInsert: number;
}

const VARIANTS: Record<string, Variant> = {
  none: { design: { index: { kind: 'none' } }, stopMerges: true, bodiesPerInsert: 8 },
  expression: { design: { index: { kind: 'expression' } }, stopMerges: true, bodiesPerInsert: 8 },
  text: { design: { index: { kind: 'text' } }, stopMerges: true, bodiesPerInsert: 8 },
  'text-lowered': { design: { index: { kind: 'text-lowered' } }, stopMerges: true, bodiesPerInsert: 8 },
  'none-merged': { design: { index: { kind: 'none' } }, stopMerges: false, bodiesPerInsert: 8 },
  'text-merged': { design: { index: { kind: 'text' } }, stopMerges: false, bodiesPerInsert: 8 },
  'text-merged-48k': { design: { index: { kind: 'text' } }, stopMerges: false, bodiesPerInsert: 48 },
  'text-merged-min10': { design: { index: { kind: 'text' }, settings: { min_parts_to_merge_at_once: 10 } }, stopMerges: false, bodiesPerInsert: 8 },
};

const fmt = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : 'n/a');

async function variantChild(name: string): Promise<void> {
  const variant = VARIANTS[name];
  if (!variant) throw new Error(`unknown variant ${name}; known: ${Object.keys(VARIANTS).join(', ')}`);
  const { payloads, counts } = await insertPayloads(ROWS, variant.bodiesPerInsert);
  const result = await engineRun(variant.design, payloads, counts, { stopMerges: variant.stopMerges });
  console.log(JSON.stringify(result));
}

/**
 * Tokenising the rows' searched text in JavaScript as the index's tokenizer would (lower-cased
 * runs of ASCII letters and digits), per row, in µs: the least a "tokens from Node" design adds to
 * Node before the engine parses the tokens it is handed. The TSV row stands in for the searched
 * text (it holds the line, labels, meta and fields, plus ids the real text lacks), so this errs high.
 */
async function tokenisingMicrosPerRow(): Promise<number> {
  const { payloads, counts } = await insertPayloads(100_000, 8);
  const rows = payloads.flatMap((payload) => payload.toString('utf8').split('\n').filter((row) => row.length > 0));
  const word = /[a-z0-9]+/g;
  const rounds: number[] = [];
  let tokens = 0;
  for (let round = 0; round < 7; round++) {
    const began = process.cpuUsage();
    for (const row of rows) {
      const found = row.toLowerCase().match(word);
      tokens += found ? found.length : 0;
    }
    const spent = process.cpuUsage(began);
    rounds.push((spent.user + spent.system) / rows.length);
  }
  if (tokens === 0 || rows.length !== counts.reduce((sum, n) => sum + n, 0)) throw new Error('tokenising found no rows or tokens');
  return median(rounds);
}

async function main(): Promise<void> {
  if (options.variant) return variantChild(options.variant);
  const names = options.only ? options.only.split(',') : Object.keys(VARIANTS);
  for (const name of names) if (!VARIANTS[name]) throw new Error(`unknown variant ${name}; known: ${Object.keys(VARIANTS).join(', ')}`);
  const script = fileURLToPath(import.meta.url);
  console.log(`bench/cost text-index: ${machine()}; ${RUNS} runs of ${ROWS.toLocaleString('en')} rows per variant; ${machineLoad()}`);
  const runs: Record<string, EngineRun[]> = Object.fromEntries(names.map((name) => [name, []]));
  const loads: string[] = [machineLoad()];
  for (let run = 0; run < RUNS; run++) {
    for (const name of names) {
      const child = spawnSync(process.execPath, [script, '--variant', name, '--rows', String(ROWS)], { encoding: 'utf8', maxBuffer: 1 << 24 });
      if (child.status !== 0) throw new Error(`${name}: ${child.stderr}`);
      const result: EngineRun = JSON.parse(child.stdout.trim().split('\n').pop()!);
      runs[name].push(result);
      loads.push(machineLoad());
      console.log(
        `  ${name} run ${run + 1}: insert ${fmt(result.insertMicrosPerRow)} µs/row, settle ${fmt(result.settleMicrosPerRow)} µs/row ` +
          `(${result.settleSeconds.toFixed(0)} s), parts ${result.partsAfterInserts} → ${result.partsSettled}, ` +
          `${(result.bytesOnDisk / 2 ** 20).toFixed(0)} MiB, RSS up to ${result.maxRssMiB} MiB; ${machineLoad()}`,
      );
    }
  }
  const insert = (name: string) => (runs[name]?.length ? median(runs[name].map((r) => r.insertMicrosPerRow)) : Number.NaN);
  const whole = (name: string) => (runs[name]?.length ? median(runs[name].map((r) => r.insertMicrosPerRow + r.settleMicrosPerRow)) : Number.NaN);
  const tokenising = await tokenisingMicrosPerRow();
  const split: Array<[string, number]> = [
    ['the insert without an index', insert('none')],
    ['evaluating INDEXED_TEXT (concatenation, lower-casing, blanking non-ASCII)', insert('expression') - insert('none')],
    ['of which blanking non-ASCII runs (text minus text-lowered)', insert('text') - insert('text-lowered')],
    ['tokenising and building posting lists at insert (text minus expression)', insert('text') - insert('expression')],
    ['merges without an index (none-merged minus none)', whole('none-merged') - insert('none')],
    ['merges, the index\'s share', whole('text-merged') - insert('text') - (whole('none-merged') - insert('none'))],
    ['today\'s design in all (text-merged)', whole('text-merged')],
    ['48,000-row inserts (text-merged-48k)', whole('text-merged-48k')],
    ['min_parts_to_merge_at_once = 10 (text-merged-min10)', whole('text-merged-min10')],
    ['tokenising the rows in JavaScript instead (this process)', tokenising],
  ];
  console.log(`\n| engine CPU of one row (medians) | µs |\n|---|---:|`);
  for (const [label, value] of split) console.log(`| ${label} | ${fmt(value)} |`);
  const date = new Date().toISOString();
  const file = path.join(root, 'bench/results', `text-index-${date.replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify({ date, machine: machine(), loads, rows: ROWS, split: Object.fromEntries(split.map(([label, value]) => [label, Number(value.toFixed(3))])), runs }, null, 2) + '\n');
  console.log(`results written to ${path.relative(root, file)}`);
}

await main();
