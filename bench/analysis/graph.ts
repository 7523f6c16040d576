/**
 * bench/analysis/graph: a board's graph of 24 hourly buckets broken down by app, as a person
 * opening a board waits for it: the count of lines, and the p95 of a number field (the synthetic
 * lines' `latency_ms`, in a fifth of them), each through POST /v1/viewer/chart against a running
 * server. Beside them, the timeline (GET /v1/histogram) over the same day in the same 24
 * buckets: the cheapest grouped count of those lines, so each graph is also given as a ratio to
 * it, measured in the same run.
 *
 * `timeGraphs` is what a larger run calls with its own server and data; run alone it starts a
 * server, sends `--lines` synthetic lines over the last 23 hours and prints the figures:
 *   node dist/bench/analysis/graph.js [--lines N] [--runs N]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ingestDataset } from '../lib/ingest-dataset.js';
import { startLogsteadServer, stopProcess } from '../lib/processes.js';
import { median } from '../lib/stats.js';

const HOUR = 3_600_000;

export interface GraphTimes {
  /** Median ms of each request over `runs`, after one warm-up. */
  countByAppMs: number;
  p95ByAppMs: number;
  /** GET /v1/histogram over the same range and buckets. */
  histogramMs: number;
  /** How many series the count by app answered (top apps and `other`). */
  series: number;
}

async function timed(request: () => Promise<Response>): Promise<{ ms: number; body: any }> {
  const started = performance.now();
  const response = await request();
  const body = await response.json();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`answered ${response.status}: ${JSON.stringify(body)}`);
  return { ms, body };
}

/**
 * Times, against the server at `url` with a service key, the 24 hourly buckets ending at `to`
 * (default now), broken down by the top `limit` apps: count, and p95 of `field`.
 */
export async function timeGraphs(url: string, serviceKey: string, options: { to?: number; runs?: number; field?: string; limit?: number } = {}): Promise<GraphTimes> {
  const to = options.to ?? Date.now();
  const from = to - 24 * HOUR + 1;
  const runs = options.runs ?? 7;
  const breakdown = { field: 'app', limit: options.limit ?? 10 };
  const chart = (measure: Record<string, string>) => () =>
    fetch(`${url}/v1/viewer/chart`, {
      method: 'POST',
      headers: { servicekey: serviceKey, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'by app', measure, breakdown, from, to, buckets: 24 }),
    });
  const histogram = () => fetch(`${url}/v1/histogram?from=${from}&to=${to}&buckets=24`, { headers: { servicekey: serviceKey } });
  const requests = { count: chart({ type: 'count' }), p95: chart({ type: 'p95', field: options.field ?? 'latency_ms' }), histogram };
  const times: Record<keyof typeof requests, number[]> = { count: [], p95: [], histogram: [] };
  let series = 0;
  for (const [name, request] of Object.entries(requests) as Array<[keyof typeof requests, () => Promise<Response>]>) {
    await timed(request); // warm-up
    for (let run = 0; run < runs; run++) {
      const { ms, body } = await timed(request);
      times[name].push(ms);
      if (name === 'count') series = body.series.length;
    }
  }
  return { countByAppMs: median(times.count), p95ByAppMs: median(times.p95), histogramMs: median(times.histogram), series };
}

/** The figures as the other benchmarks print them. */
export function printGraphTimes(lines: number, times: GraphTimes): void {
  console.log('| measure | value | against the timeline |');
  console.log('|---|---:|---:|');
  console.log(`| timeline, 24 hourly buckets over ${lines.toLocaleString('en')} lines (median) | ${times.histogramMs.toFixed(0)} ms | 1.00 |`);
  console.log(`| graph: count by app, 24 hourly buckets (median; ${times.series} series) | ${times.countByAppMs.toFixed(0)} ms | ${(times.countByAppMs / times.histogramMs).toFixed(2)} |`);
  console.log(`| graph: p95 of latency_ms by app, 24 hourly buckets (median) | ${times.p95ByAppMs.toFixed(0)} ms | ${(times.p95ByAppMs / times.histogramMs).toFixed(2)} |`);
}

async function main() {
  const { values } = parseArgs({ options: { lines: { type: 'string', default: '1000000' }, runs: { type: 'string', default: '7' } } });
  const total = Number(values.lines);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-graph-bench-'));
  console.log(`bench/analysis/graph: ${total.toLocaleString('en')} lines over 23 hours; ${os.cpus().length} cores, Node ${process.version}`);
  const server = await startLogsteadServer({ LOGSTEAD_DATA_DIR: dataDir });
  try {
    const credentials = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
    const spanMs = 23 * HOUR;
    const ingested = await ingestDataset(server.url, credentials.ingestionKey, total, Date.now() - spanMs, spanMs);
    console.log(`  ingested in ${ingested.seconds.toFixed(0)} s\n`);
    printGraphTimes(total, await timeGraphs(server.url, credentials.serviceKey, { runs: Number(values.runs) }));
  } finally {
    await stopProcess(server.child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
