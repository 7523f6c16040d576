/**
 * bench/analysis/fields: the fields sidebar (GET /v1/viewer/fields) timed against a running
 * server, over a few searches of the data set of bench/search (bench/lib/synthetic-lines.ts).
 * `benchFields` is what a suite calls with its own server; run alone, this file starts Logstead
 * in-process on a data directory that bench/search (or an earlier run) filled:
 *
 *   node dist/bench/analysis/fields.js --data-dir /tmp/keep-me [--runs 5]
 *
 * Each timing is until the answer's last byte, the median of `runs` after one warm-up. With
 * `beforeEach` (the suite passes one that drops the engine's query condition cache), each timed
 * run is a first search.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from '../lib/stats.js';

export interface FieldsCase {
  name: string;
  /** Query-string parameters beyond from and to. */
  params: Record<string, string>;
}

/** A day's search, as a person opens the viewer on it, then narrowed three ways. */
export const FIELDS_CASES: FieldsCase[] = [
  { name: 'the whole range, no query', params: {} },
  { name: 'a common word', params: { query: 'timeout' } },
  { name: 'one app', params: { apps: 'app-0' } },
  { name: 'a meta field', params: { query: 'meta.status:500' } },
];

export interface FieldsTiming {
  name: string;
  params: Record<string, string>;
  /** Lines the search matched and fields listed, from the last answer. */
  lines: number;
  fields: number;
  medianMs: number;
  runsMs: number[];
}

export interface FieldsBenchOptions {
  url: string;
  serviceKey: string;
  from: number;
  to: number;
  runs?: number;
  cases?: FieldsCase[];
  /** Called before every timed run, e.g. to drop the engine's caches. */
  beforeEach?: () => Promise<void>;
}

async function timeOnce(options: FieldsBenchOptions, item: FieldsCase): Promise<{ ms: number; lines: number; fields: number }> {
  const query = new URLSearchParams({ from: String(options.from), to: String(options.to), ...item.params });
  const started = performance.now();
  const response = await fetch(`${options.url}/v1/viewer/fields?${query}`, { headers: { servicekey: options.serviceKey } });
  const text = await response.text();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`${item.name}: ${response.status} ${text}`);
  const answer = JSON.parse(text) as { lines: number; fields: unknown[] };
  return { ms, lines: answer.lines, fields: answer.fields.length };
}

/** Times the fields sidebar for each case and prints one line per case. */
export async function benchFields(options: FieldsBenchOptions): Promise<FieldsTiming[]> {
  const results: FieldsTiming[] = [];
  for (const item of options.cases ?? FIELDS_CASES) {
    await timeOnce(options, item); // warm-up
    const runsMs: number[] = [];
    let last = { lines: 0, fields: 0 };
    for (let run = 0; run < (options.runs ?? 5); run++) {
      await options.beforeEach?.();
      const timed = await timeOnce(options, item);
      runsMs.push(timed.ms);
      last = timed;
    }
    const result = { name: item.name, params: item.params, ...last, medianMs: median(runsMs), runsMs };
    results.push(result);
    console.log(`  fields sidebar, ${item.name}: ${result.medianMs.toFixed(0)} ms median (${runsMs.map((ms) => ms.toFixed(0)).join(', ')}) over ${result.lines.toLocaleString('en')} lines, ${result.fields} fields`);
  }
  return results;
}

async function main() {
  const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, runs: { type: 'string', default: '5' } } });
  const dataDir = values['data-dir'];
  if (!dataDir || !fs.existsSync(path.join(dataDir, 'initial-credentials.json'))) {
    throw new Error('give --data-dir: a data directory that bench/search filled (it holds initial-credentials.json)');
  }
  const { startLogstead } = await import('../../src/app.js');
  const { loadSettings } = await import('../../src/settings.js');
  const credentials = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
  const running = await startLogstead(loadSettings({ LOGSTEAD_DATA_DIR: dataDir, LOGSTEAD_PORT: '0', LOGSTEAD_LOG_LEVEL: 'warn' }));
  try {
    const { rows, activeParts } = await running.store.stats();
    console.log(`bench/analysis/fields: ${rows.toLocaleString('en')} lines in ${activeParts} parts (${dataDir})`);
    await benchFields({
      url: running.url,
      serviceKey: credentials.serviceKey,
      from: 0,
      to: Date.now() + 60_000,
      runs: Number(values.runs),
      beforeEach: () => running.engine.exec('SYSTEM DROP QUERY CONDITION CACHE'),
    });
  } finally {
    await running.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
