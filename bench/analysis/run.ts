/**
 * bench/analysis: the viewer's answers (issue 40) over a data directory that bench/search filled,
 * 10 million lines by default: the fields sidebar, the log patterns and a board's graph of 24
 * hourly buckets broken down by app. Each is timed through the API, beside the plain count or
 * timeline of the same lines measured in the same run (the ceiling the answer is compared to).
 *
 *   node dist/bench/search/run.js --data-dir /tmp/keep-10m    # fills it once (and times searches)
 *   node dist/bench/analysis/run.js --data-dir /tmp/keep-10m [--runs 3]
 *
 * Results are also written to bench/results/analysis-<date>.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startLogstead } from '../../src/app.js';
import { loadSettings } from '../../src/settings.js';
import { benchFields } from './fields.js';
import { printGraphTimes, timeGraphs } from './graph.js';
import { TIMING_HEADER, describeTiming, timePatterns } from './patterns.js';

const { values: options } = parseArgs({ options: { 'data-dir': { type: 'string' }, runs: { type: 'string', default: '3' } } });
const root = fileURLToPath(new URL('../../../', import.meta.url));
const HOUR = 3_600_000;

async function main() {
  const dataDir = options['data-dir'];
  const datasetFile = dataDir && path.join(dataDir, 'bench-search-dataset.json');
  if (!datasetFile || !fs.existsSync(datasetFile)) throw new Error('give --data-dir: a data directory that bench/search filled (node dist/bench/search/run.js --data-dir DIR)');
  const dataset = JSON.parse(fs.readFileSync(datasetFile, 'utf8')) as { lines: number; spanStart: number };
  const credentials = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
  const runs = Number(options.runs);
  const running = await startLogstead(loadSettings({ LOGSTEAD_DATA_DIR: dataDir, LOGSTEAD_PORT: '0', LOGSTEAD_LOG_LEVEL: 'warn' }));
  try {
    const { rows, activeParts } = await running.store.stats();
    console.log(`bench/analysis: ${rows.toLocaleString('en')} lines in ${activeParts} parts; ${os.cpus().length} cores, Node ${process.version}; ${runs} timed runs each\n`);
    // The day the data set spans (23 h, ingested relative to when bench/search ran).
    const from = dataset.spanStart - 60_000;
    const to = dataset.spanStart + 23 * HOUR + 60_000;
    const firstSearch = () => running.engine.exec('SYSTEM DROP QUERY CONDITION CACHE');

    console.log('Fields sidebar (GET /v1/viewer/fields), a day\'s search:');
    const fields = await benchFields({ url: running.url, serviceKey: credentials.serviceKey, from, to, runs, beforeEach: firstSearch });

    console.log('\nLog patterns (GET /v1/viewer/patterns):');
    console.log(TIMING_HEADER);
    const patterns = [];
    for (const [name, range, params] of [
      ['the last hour', [to - HOUR, to], {}],
      ['the day, level:error', [from, to], { query: 'level:error' }],
      ['the whole day', [from, to], {}],
    ] as Array<[string, [number, number], Record<string, string>]>) {
      const timing = await timePatterns(running.url, credentials.serviceKey, range[0], range[1], runs, params);
      patterns.push({ name, ...timing });
      console.log(describeTiming(name, timing));
    }

    console.log('\nA graph of 24 hourly buckets by app (POST /v1/viewer/chart):');
    const graph = await timeGraphs(running.url, credentials.serviceKey, { to, runs });
    printGraphTimes(rows, graph);

    const summary = { date: new Date().toISOString(), machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`, lines: rows, runs, fields, patterns, graph };
    const file = path.join(root, 'bench/results', `analysis-${summary.date.replace(/[:.]/g, '-')}.json`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(summary, null, 2) + '\n');
    console.log(`\nresults written to ${path.relative(root, file)}`);
  } finally {
    await running.close();
  }
}

await main();
