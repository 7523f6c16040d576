/**
 * bench/analysis/patterns: how long GET /v1/viewer/patterns takes against a running server, beside
 * a ceiling measured in the same run: a plain count of the same lines (the least any answer over
 * every line costs), so the ratio says what masking, grouping and clustering add.
 *
 * `timePatterns` is for a bigger run (the 10 M lines of bench/search) to call with its own server.
 * Run alone, it ingests bench/search's synthetic data set (bench/lib/ingest-dataset.ts) into a
 * fresh server and times the last hour and the whole span:
 *   node dist/bench/analysis/patterns.js [--lines N] [--runs N]   (default 300,000 lines)
 * or, given a data directory that bench/search filled, opens Logstead in-process on it (reading
 * only) and times the last hour, the day with `level:error` and the whole day:
 *   node dist/bench/analysis/patterns.js --data-dir /tmp/keep-10m [--runs N]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ingestDataset } from '../lib/ingest-dataset.js';
import { startLogsteadServer, stopProcess } from '../lib/processes.js';
import { median } from '../lib/stats.js';
import { timedGet } from '../lib/timed-get.js';

export interface PatternsTiming {
  /** What was timed: the range, and the parameters beyond from and to. */
  from: number;
  to: number;
  params: Record<string, string>;
  lines: number;
  patterns: number;
  /** Patterns past the limit, and their lines. */
  others: { patterns: number; lines: number };
  newPatterns: number;
  /** Medians over `runs`, after one warm-up each. */
  patternsMs: number;
  /** GET /v1/histogram with one bucket over the same lines: a plain count, the ceiling. */
  countMs: number;
  ratio: number;
}

/**
 * Times GET /v1/viewer/patterns over [from, to] with a service key, `runs` times after a warm-up,
 * and a one-bucket histogram of the same lines beside it.
 */
export async function timePatterns(baseUrl: string, serviceKey: string, from: number, to: number, runs = 5, params: Record<string, string> = {}): Promise<PatternsTiming> {
  const headers = { servicekey: serviceKey };
  const query = new URLSearchParams({ from: String(from), to: String(to), ...params });
  const patterns = () => timedGet(`${baseUrl}/v1/viewer/patterns?${query}`, headers);
  const countQuery = new URLSearchParams({ from: String(from), to: String(to), buckets: '1', ...(params.query ? { query: params.query } : {}) });
  const count = () => timedGet(`${baseUrl}/v1/histogram?${countQuery}`, headers);
  let answer = (await patterns()).json; // warm-up
  await count();
  const patternsMs: number[] = [];
  const countMs: number[] = [];
  for (let run = 0; run < runs; run++) {
    const result = await patterns();
    patternsMs.push(result.ms);
    answer = result.json;
    countMs.push((await count()).ms);
  }
  const counted = (await count()).json.buckets.reduce((sum: number, bucket: { count: number }) => sum + bucket.count, 0);
  if (counted !== answer.lines) throw new Error(`patterns counted ${answer.lines} lines, the histogram ${counted}`);
  return {
    from,
    to,
    params,
    lines: answer.lines,
    patterns: answer.patterns.length,
    others: answer.others,
    newPatterns: answer.patterns.filter((pattern: { new: boolean }) => pattern.new).length,
    patternsMs: median(patternsMs),
    countMs: median(countMs),
    ratio: median(patternsMs) / median(countMs),
  };
}

/** One line of a results table. */
export const describeTiming = (name: string, t: PatternsTiming) =>
  `| ${name} | ${t.lines.toLocaleString('en')} | ${t.patterns} (+${t.others.patterns} more) | ${t.newPatterns} | ${t.patternsMs.toFixed(0)} ms | ${t.countMs.toFixed(0)} ms | ${t.ratio.toFixed(1)} |`;

export const TIMING_HEADER = '| range | lines | patterns | new | patterns median | count median (ceiling) | ratio |\n|---|---:|---:|---:|---:|---:|---:|';

const HOUR = 3_600_000;

/** The three searches of bench/analysis/run.ts, over a data directory bench/search filled. */
async function benchDataDir(dataDir: string, runs: number): Promise<void> {
  const dataset = JSON.parse(fs.readFileSync(path.join(dataDir, 'bench-search-dataset.json'), 'utf8')) as { spanStart: number };
  const credentials = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
  const { startLogstead } = await import('../../src/app.js');
  const { loadSettings } = await import('../../src/settings.js');
  const running = await startLogstead(loadSettings({ LOGSTEAD_DATA_DIR: dataDir, LOGSTEAD_PORT: '0', LOGSTEAD_LOG_LEVEL: 'warn' }));
  try {
    const { rows } = await running.store.stats();
    console.log(`bench/analysis/patterns: ${rows.toLocaleString('en')} lines (${dataDir}); ${os.cpus().length} cores, Node ${process.version}; ${runs} timed runs each`);
    const from = dataset.spanStart - 60_000;
    const to = dataset.spanStart + 23 * HOUR + 60_000;
    console.log(TIMING_HEADER);
    for (const [name, range, params] of [
      ['the last hour', [to - HOUR, to], {}],
      ['the day, level:error', [from, to], { query: 'level:error' }],
      ['the whole day', [from, to], {}],
    ] as Array<[string, [number, number], Record<string, string>]>) {
      console.log(describeTiming(name, await timePatterns(running.url, credentials.serviceKey, range[0], range[1], runs, params)));
    }
  } finally {
    await running.close();
  }
}

async function main() {
  const { values } = parseArgs({ options: { lines: { type: 'string', default: '300000' }, runs: { type: 'string', default: '5' }, 'data-dir': { type: 'string' } } });
  if (values['data-dir']) return benchDataDir(values['data-dir'], Number(values.runs));
  const total = Number(values.lines);
  const runs = Number(values.runs);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-patterns-bench-'));
  const spanMs = 23 * 3_600_000;
  const spanStart = Date.now() - spanMs;
  console.log(`bench/analysis/patterns: ${total.toLocaleString('en')} lines over 23 h; ${os.cpus().length} cores, Node ${process.version}`);
  const serving = await startLogsteadServer({ LOGSTEAD_DATA_DIR: dataDir });
  try {
    const credentials = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
    const { seconds } = await ingestDataset(serving.url, credentials.ingestionKey, total, spanStart, spanMs);
    console.log(`  ingested in ${seconds.toFixed(0)} s\n`);
    const now = Date.now();
    const cases: Array<[string, number, number, Record<string, string>]> = [
      ['last hour', now - 3_600_000, now, {}],
      ['whole span (23 h)', spanStart - 60_000, now, {}],
      ['whole span, `level:error`', spanStart - 60_000, now, { query: 'level:error' }],
    ];
    console.log(TIMING_HEADER);
    const results = [];
    for (const [name, from, to, params] of cases) {
      const timing = await timePatterns(serving.url, credentials.serviceKey, from, to, runs, params);
      results.push({ name, ...timing });
      console.log(describeTiming(name, timing));
    }
    const root = fileURLToPath(new URL('../../../', import.meta.url));
    const file = path.join(root, 'bench/results', `patterns-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    fs.writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`, lines: total, results }, null, 2)}\n`);
    console.log(`\nresults written to ${path.relative(root, file)}`);
  } finally {
    await stopProcess(serving.child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
