/**
 * Issue 19's levers, each on the same rows: the search index (today's text index, token and
 * n-gram Bloom filters with an exact post-filter, no index), the codec of `line`, the sort key,
 * the granule, merge settings and insert size. For each design, in a fresh process:
 *  - insert rate and CPU per row (inserts, then until merges settle), 8,000-row inserts unless said;
 *  - bytes on disk per raw JSON byte once merges settle, and after OPTIMIZE FINAL;
 *  - the medians of 7 timings of bench/search's queries through the real LogStore, on the settled
 *    table, and the ids each returns, which must equal today's design's (checked here).
 *
 *   node dist/bench/cost/levers.js [--rows 2000000] [--only 'name|name'] [--no-reference]
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { SqlExecutor } from '../../src/store/executor.js';
import { LogStore, type LineFilter } from '../../src/store/log-store.js';
import type { StoredLine } from '../../src/store/types.js';
import { encodeRows } from '../../src/store/row-encoding.js';
import { LOGS_TABLE } from '../../src/store/schema.js';
import { median } from '../lib/stats.js';
import { lineGenerator } from '../lib/synthetic-lines.js';
import { machine, machineLoad } from './common.js';
import { type EngineRun, engineRun, partsAndMerges } from './engine-run.js';
import { conditionFor } from './search-conditions.js';
import type { TableDesign } from './table.js';

const { values: options } = parseArgs({
  options: {
    rows: { type: 'string', default: '2000000' },
    only: { type: 'string' },
    design: { type: 'string' },
    start: { type: 'string' },
    runs: { type: 'string', default: '7' },
    'no-reference': { type: 'boolean', default: false },
    /** Turn off the engine's query condition cache, which remembers granules a condition ruled out (first-time latency). */
    'no-condition-cache': { type: 'boolean', default: false },
  },
});
const ROWS = Number(options.rows);
const SPAN_MS = 23 * 3_600_000;
const root = fileURLToPath(new URL('../../../', import.meta.url));

interface Lever {
  name: string;
  design: TableDesign;
  batch?: number;
  /** tokenbf only: words as whole tokens (changes the meaning; compared, not required to agree). */
  wholeTokens?: boolean;
  /** Only with --only (kept short enough for a shared machine by default). */
  optional?: boolean;
}

const text = { kind: 'text' } as const;
const LEVERS: Lever[] = [
  { name: 'text', design: { index: text } },
  { name: 'text-fixed', design: { index: { kind: 'text', notEmptyFields: true } } },
  { name: 'text-fixed, 48,000-row inserts', design: { index: { kind: 'text', notEmptyFields: true } }, batch: 48_000 },
  { name: 'none', design: { index: { kind: 'none' } } },
  { name: 'tokenbf-8k', design: { index: { kind: 'tokenbf', bytes: 8192, hashes: 2, granularity: 1 } } },
  { name: 'tokenbf-32k', design: { index: { kind: 'tokenbf', bytes: 32768, hashes: 2, granularity: 1 } } },
  { optional: true, name: 'tokenbf-32k-whole', design: { index: { kind: 'tokenbf', bytes: 32768, hashes: 2, granularity: 1 } }, wholeTokens: true },
  { optional: true, name: 'tokenbf-128k', design: { index: { kind: 'tokenbf', bytes: 131072, hashes: 3, granularity: 1 } } },
  { name: 'ngrambf4-32k', design: { index: { kind: 'ngrambf', n: 4, bytes: 32768, hashes: 2, granularity: 1 } } },
  { optional: true, name: 'ngrambf4-128k', design: { index: { kind: 'ngrambf', n: 4, bytes: 131072, hashes: 2, granularity: 1 } } },
  { name: 'text, 48,000-row inserts', design: { index: text }, batch: 48_000 },
  { name: 'none, 48,000-row inserts', design: { index: { kind: 'none' } }, batch: 48_000 },
  { name: 'text, line ZSTD(1)', design: { index: text, lineCodec: 'ZSTD(1)' } },
  { optional: true, name: 'none, line ZSTD(1)', design: { index: { kind: 'none' }, lineCodec: 'ZSTD(1)' } },
  { name: 'none, line ZSTD(6)', design: { index: { kind: 'none' }, lineCodec: 'ZSTD(6)' } },
  { name: 'text, merge_selector_base 40', design: { index: text, settings: { merge_selector_base: 40 } } },
  { name: 'text, index_granularity 16384', design: { index: text, settings: { index_granularity: 16384 } } },
  { name: 'none, sort (account, toStartOfHour(ts), app, ts, id)', design: { index: { kind: 'none' }, orderBy: '(account, toStartOfHour(ts), app, ts, id)' } },
];

interface QueryCase {
  name: string;
  query: string;
  needles: string[];
  kind: 'lines' | 'histogram';
  size?: number;
}

const QUERIES: QueryCase[] = [
  { name: 'rare word (12 hits)', query: 'segfault', needles: ['segfault'], kind: 'lines', size: 100 },
  { name: 'common word, newest 100', query: 'timeout', needles: ['timeout'], kind: 'lines', size: 100 },
  { name: 'two words, newest 100', query: 'cache timeout', needles: ['cache', 'timeout'], kind: 'lines', size: 100 },
  { name: 'phrase, newest 100', query: '"connection reset"', needles: ['connection reset'], kind: 'lines', size: 100 },
  { name: '24 h histogram of a word', query: 'timeout', needles: ['timeout'], kind: 'histogram' },
  { name: 'export of 10,000 lines', query: '', needles: [], kind: 'lines', size: 10_000 },
];

interface QueryResult {
  name: string;
  medianMs: number;
  hits: number;
  /** Hash of the ids (lines) or of the bucket counts (histogram). */
  digest: string;
}

interface LeverResult {
  name: string;
  engine: EngineRun;
  bytesSettled: number;
  bytesFinal: number;
  rawBytes: number;
  queries: QueryResult[];
  load: string;
}

/**
 * The search benchmark's rows (bench/lib/ingest-dataset.ts's shape: oldest first over 23 h, 12
 * needles), encoded batch by batch so that only the TSV payloads are held (10 million rows fit).
 */
function datasetPayloads(start: number, batch: number): { payloads: Buffer[]; counts: number[]; rawBytes: number } {
  const generator = lineGenerator(11);
  const needleEvery = Math.floor(ROWS / 12);
  const payloads: Buffer[] = [];
  const counts: number[] = [];
  let rawBytes = 0;
  let host = generator.host();
  let rows: StoredLine[] = [];
  for (let i = 0; i < ROWS; i++) {
    if (i % 5000 === 0) host = generator.host();
    const ts = start + Math.floor((i / ROWS) * SPAN_MS);
    const line = generator.next(ts);
    if (i % needleEvery === needleEvery - 1) line.line += ' kernel: segfault at 0 ip 00007f';
    rawBytes += JSON.stringify(line).length + 1;
    const meta = line.meta ? JSON.stringify(line.meta) : '';
    rows.push({
      account: 'bench', ts, id: String(ts * 1024 + (i % 1024)), batch_id: `batch-${Math.floor(i / 5000)}`, host, app: line.app,
      level: line.level, env: '', file: '', ip: '', mac: '', tags: [], line: line.line, logtype: meta ? 'json' : 'text',
      fields: meta ? line.line : '', meta, meta_indexed: meta !== '', extra: '', size: Buffer.byteLength(line.line),
    });
    if (rows.length === batch || i === ROWS - 1) {
      payloads.push(encodeRows(rows));
      counts.push(rows.length);
      rows = [];
    }
  }
  return { payloads, counts, rawBytes };
}

/**
 * LogStore.open would bring the table to today's schema (adding the text index); the lever's table
 * must stay as designed, so opening sees a table already up to date.
 */
function upToDateShim(executor: SqlExecutor): { executor: SqlExecutor; done: () => void } {
  let opening = true;
  // Repeating a query would otherwise time the engine's memory of it, not the search.
  const uncached = (sql: string) =>
    !options['no-condition-cache'] ? sql : sql.includes(' SETTINGS ') ? sql.replace(' SETTINGS ', ' SETTINGS use_query_condition_cache = 0, ') : `${sql} SETTINGS use_query_condition_cache = 0`;
  const shim: SqlExecutor = {
    exec: (sql, params) => (opening ? Promise.resolve() : executor.exec(sql, params)),
    rows: <T>(sql: string, params?: Record<string, unknown>) => {
      if (!opening) return executor.rows<T>(uncached(sql), params);
      if (sql.includes('data_skipping_indices')) return Promise.resolve([{ name: 'search_tokens', current: 1 }] as T[]);
      return Promise.resolve([{ unindexed: '0' }] as T[]);
    },
    stream: (sql, params) => executor.stream(uncached(sql), params),
    gzipLines: (sql, params, level) => executor.gzipLines(sql, params, level),
    insertTabSeparated: (table, columns, payload) => executor.insertTabSeparated(table, columns, payload),
    close: () => executor.close(),
  };
  return { executor: shim, done: () => (opening = false) };
}

async function runQueries(store: LogStore, lever: Lever, from: number, to: number): Promise<QueryResult[]> {
  const results: QueryResult[] = [];
  for (const item of QUERIES) {
    const condition = item.needles.length ? conditionFor(lever.design.index, item.query, item.needles, lever.wholeTokens) : undefined;
    const filter: LineFilter = { account: 'bench', fromMs: from, toMs: to, condition };
    const once = async (): Promise<{ ms: number; keys: string[] }> => {
      const began = performance.now();
      const keys: string[] = [];
      if (item.kind === 'histogram') {
        for (const bucket of await store.histogram(filter, Math.ceil((to - from + 1) / 96))) keys.push(`${bucket.bucket}/${bucket.level}/${bucket.count}`);
      } else {
        for await (const chunk of store.read(filter, { prefer: 'tail', limit: item.size!, chronological: true })) for (const row of chunk) keys.push(row.id);
      }
      return { ms: performance.now() - began, keys };
    };
    const first = await once(); // warm-up
    const times: number[] = [];
    for (let run = 0; run < Number(options.runs); run++) times.push((await once()).ms);
    const hits = item.kind === 'histogram' ? first.keys.reduce((sum, key) => sum + Number(key.split('/')[2]), 0) : first.keys.length;
    results.push({ name: item.name, medianMs: Number(median(times).toFixed(1)), hits, digest: createHash('sha1').update([...first.keys].sort().join(',')).digest('hex').slice(0, 12) });
  }
  return results;
}

async function leverChild(lever: Lever, start: number): Promise<void> {
  const { payloads, counts, rawBytes } = datasetPayloads(start, lever.batch ?? 8000);
  let bytesSettled = 0;
  let bytesFinal = 0;
  let queries: QueryResult[] = [];
  const engine = await engineRun(lever.design, payloads, counts, {
    after: async (executor) => {
      payloads.length = 0;
      bytesSettled = (await partsAndMerges(executor)).bytes;
      const shim = upToDateShim(executor);
      const store = await LogStore.open(shim.executor);
      shim.done();
      queries = await runQueries(store, lever, start - 60_000, start + SPAN_MS + 60_000);
      await executor.exec(`OPTIMIZE TABLE ${LOGS_TABLE} FINAL`);
      bytesFinal = (await partsAndMerges(executor)).bytes;
    },
  });
  const result: LeverResult = { name: lever.name, engine, bytesSettled, bytesFinal, rawBytes, queries, load: machineLoad() };
  console.log(JSON.stringify(result));
}

async function main() {
  const start = Number(options.start ?? Date.now() - SPAN_MS - 3_600_000);
  if (options.design) return leverChild(LEVERS.find((lever) => lever.name === options.design)!, start);
  const chosen = options.only ? LEVERS.filter((lever) => options.only!.split('|').includes(lever.name)) : LEVERS.filter((lever) => !lever.optional);
  // The reference for correctness: the text index as intended (same answers as today's, faster).
  if (!options['no-reference'] && !chosen.some((lever) => lever.name.startsWith('text'))) chosen.unshift(LEVERS.find((lever) => lever.name === 'text-fixed')!);
  console.log(`bench/cost levers: ${ROWS.toLocaleString('en')} rows over 23 h, one fresh process per design; ${machine()}; ${machineLoad()}`);
  const script = fileURLToPath(import.meta.url);
  const results: LeverResult[] = [];
  for (const lever of chosen) {
    const child = spawnSync(process.execPath, ['--max-semi-space-size=64', script, '--design', lever.name, '--rows', String(ROWS), '--start', String(start), '--runs', options.runs!, ...(options['no-condition-cache'] ? ['--no-condition-cache'] : [])],
      { encoding: 'utf8', maxBuffer: 1 << 24 });
    if (child.status !== 0) {
      console.log(`| ${lever.name} | failed: ${child.stderr.split('\n').slice(0, 3).join(' ')} |`);
      continue;
    }
    const result: LeverResult = JSON.parse(child.stdout.trim().split('\n').pop()!);
    results.push(result);
    const reference = results[0];
    const agree = result.queries.map((query, i) => query.digest === reference.queries[i].digest);
    const e = result.engine;
    console.log(
      `${lever.name}: ${Math.round(e.rows / e.insertSeconds).toLocaleString('en')} rows/s, CPU ${e.insertMicrosPerRow.toFixed(1)} + ${e.settleMicrosPerRow.toFixed(1)} µs/row, ` +
        `${(result.bytesSettled / result.rawBytes).toFixed(3)} B/raw B settled (${e.partsSettled} parts), ${(result.bytesFinal / result.rawBytes).toFixed(3)} after OPTIMIZE FINAL, RSS ${e.maxRssMiB} MiB; ` +
        result.queries.map((query, i) => `${query.name} ${query.medianMs} ms (${query.hits}${agree[i] ? '' : ' DIFFERS'})`).join('; ') + `; ${result.load}`,
    );
  }
  const reference = results[0];
  console.log(`\n| design | rows/s | CPU µs/row (insert + merges) | B/raw B settled | after FINAL | ${QUERIES.map((q) => q.name).join(' | ')} |`);
  console.log(`|---|---:|---:|---:|---:|${QUERIES.map(() => '---:').join('|')}|`);
  for (const result of results) {
    const e = result.engine;
    const cells = result.queries.map((query, i) => `${query.medianMs}${query.digest === reference.queries[i].digest ? '' : ' ≠'}`);
    console.log(`| ${result.name} | ${Math.round(e.rows / e.insertSeconds).toLocaleString('en')} | ${(e.insertMicrosPerRow + e.settleMicrosPerRow).toFixed(1)} (${e.insertMicrosPerRow.toFixed(1)} + ${e.settleMicrosPerRow.toFixed(1)}) | ` +
      `${(result.bytesSettled / result.rawBytes).toFixed(3)} | ${(result.bytesFinal / result.rawBytes).toFixed(3)} | ${cells.join(' | ')} |`);
  }
  const date = new Date().toISOString();
  const file = path.join(root, 'bench/results', `levers-${date.replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify({ date, machine: machine(), rows: ROWS, results }, null, 2) + '\n');
  console.log(`results written to ${path.relative(root, file)} (≠: not the same lines as the text index's answer)`);
}

await main();
