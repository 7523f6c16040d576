/**
 * bench/analysis/beside: how long a one-line ingest request waits while the viewer reads a range
 * of lines. On the embedded engine a read on the store's main connection holds every insert, and
 * with it every acknowledgement, until it ends; a read run apart does not (docs/performance.md,
 * "The viewer's analysis runs apart from inserts"). Over a data directory that bench/search filled:
 * each read is timed alone, then one-line requests are timed alone and while that read runs in a
 * loop. The ratio, beside against alone, is what the read costs a sender.
 *
 *   node dist/bench/search/run.js --data-dir /tmp/keep-10m    # fills it once
 *   node dist/bench/analysis/beside.js --data-dir /tmp/keep-10m [--requests 15]
 *
 * Results are also written to bench/results/beside-<date>.json.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { startLogstead } from '../../src/app.js';
import { loadSettings } from '../../src/settings.js';
import { postIngest } from '../lib/ingest-request.js';
import { median } from '../lib/stats.js';
import { timedGet } from '../lib/timed-get.js';

const { values: options } = parseArgs({ options: { 'data-dir': { type: 'string' }, requests: { type: 'string', default: '15' } } });
const root = fileURLToPath(new URL('../../../', import.meta.url));
const HOUR = 3_600_000;

async function main() {
  const dataDir = options['data-dir'];
  const datasetFile = dataDir && path.join(dataDir, 'bench-search-dataset.json');
  if (!datasetFile || !fs.existsSync(datasetFile)) throw new Error('give --data-dir: a data directory that bench/search filled (node dist/bench/search/run.js --data-dir DIR)');
  const dataset = JSON.parse(fs.readFileSync(datasetFile, 'utf8')) as { spanStart: number };
  const credentials = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
  const requests = Number(options.requests);
  const running = await startLogstead(loadSettings({ LOGSTEAD_DATA_DIR: dataDir, LOGSTEAD_PORT: '0', LOGSTEAD_LOG_LEVEL: 'warn' }));
  const agent = new http.Agent({ keepAlive: true });
  try {
    const { rows } = await running.store.stats();
    const from = dataset.spanStart - 60_000;
    const to = dataset.spanStart + 23 * HOUR + 60_000;
    const day = `from=${from}&to=${to}`;
    const reads: Array<[string, string]> = [
      ['the timeline (GET /v1/histogram, 96 buckets)', `/v1/histogram?${day}&buckets=96`],
      ['the menus (GET /v1/viewer/facets)', `/v1/viewer/facets?${day}`],
      ['the menus of a word (timeout)', `/v1/viewer/facets?${day}&query=timeout`],
      ['usage, 30 days (GET /v1/usage)', `/v1/usage?from=${to - 30 * 24 * HOUR}&to=${to}`],
      ['the fields sidebar (GET /v1/viewer/fields)', `/v1/viewer/fields?${day}`],
    ];
    console.log(`bench/analysis/beside: ${rows.toLocaleString('en')} lines; ${os.cpus().length} cores, Node ${process.version}; ${requests} one-line requests each\n`);

    const read = async (pathAndQuery: string): Promise<number> => (await timedGet(`${running.url}${pathAndQuery}`, { servicekey: credentials.serviceKey })).ms;
    const target = new URL(running.url);
    const body = Buffer.from(JSON.stringify({ lines: [{ line: 'beside the viewer', app: 'bench-beside' }] }));
    const ingestTimes = async (): Promise<number[]> => {
      const times: number[] = [];
      for (let i = 0; i < requests; i++) {
        const began = performance.now();
        const status = await postIngest(agent, target, credentials.ingestionKey, body, 'bench-beside');
        if (status !== 200) throw new Error(`ingest: ${status}`);
        times.push(performance.now() - began);
        // Not in step with the read's loop, so the requests land at every point of it.
        await sleep(37);
      }
      return times;
    };

    const alone = median(await ingestTimes());
    console.log(`a one-line request alone: median ${alone.toFixed(1)} ms\n`);
    console.log('| read | read alone, median ms | one-line request beside it: median / max ms | beside / alone |');
    console.log('|---|---:|---:|---:|');
    const results = [];
    for (const [name, pathAndQuery] of reads) {
      const readMs: number[] = [];
      for (let i = 0; i < 3; i++) readMs.push(await read(pathAndQuery));
      let reading = true;
      const loop = (async () => {
        while (reading) await read(pathAndQuery);
      })();
      await sleep(100);
      const beside = await ingestTimes();
      reading = false;
      await loop;
      const result = { name, readMs: median(readMs), besideMs: median(beside), besideMaxMs: Math.max(...beside), ratio: median(beside) / alone };
      results.push(result);
      console.log(`| ${name} | ${result.readMs.toFixed(0)} | ${result.besideMs.toFixed(0)} / ${result.besideMaxMs.toFixed(0)} | ${result.ratio.toFixed(2)} |`);
    }
    const summary = { date: new Date().toISOString(), machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`, lines: rows, requests, aloneMs: alone, results };
    const file = path.join(root, 'bench/results', `beside-${summary.date.replace(/[:.]/g, '-')}.json`);
    fs.writeFileSync(file, JSON.stringify(summary, null, 2) + '\n');
    console.log(`\nresults written to ${path.relative(root, file)}`);
  } finally {
    agent.destroy();
    await running.close();
  }
}

await main();
