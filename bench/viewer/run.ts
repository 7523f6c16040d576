/**
 * bench/viewer: what a person at the viewer waits for.
 * 1. Live tail: how long after a line is acknowledged a live-tail client receives it (p50, p99).
 * 2. Time to first results: the viewer's opening requests (newest page of lines, timeline,
 *    filter values) over a large data set, until all three have answered.
 * Usage: node dist/bench/viewer/run.js [--quick] [--lines N] [--samples N]
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { ingestDataset } from '../lib/ingest-dataset.js';
import { startLogsteadServer, stopProcess } from '../lib/processes.js';
import { median, percentile } from '../lib/stats.js';

const { values: options } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    lines: { type: 'string' },
    samples: { type: 'string' },
    runs: { type: 'string', default: '7' },
  },
});
const TOTAL = Number(options.lines ?? (options.quick ? 300_000 : 10_000_000));
const SAMPLES = Number(options.samples ?? (options.quick ? 100 : 500));
const RUNS = Number(options.runs);
const root = fileURLToPath(new URL('../../../', import.meta.url));

async function tailLatency(url: string, ingestionKey: string, serviceKey: string): Promise<number[]> {
  const socket = new WebSocket(`${url.replace('http', 'ws')}/ws/tail?q=benchmarker`, 'json', { headers: { authorization: `Token ${serviceKey}` } });
  const seen = new Map<string, number>();
  socket.on('message', (data) => {
    const message = JSON.parse(data.toString());
    if (message.e === 'logs') for (const line of message.p) seen.set(line._line, performance.now());
  });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  const latencies: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const text = `benchmarker line ${i}`;
    const response = await fetch(`${url}/logs/ingest?hostname=bench`, {
      method: 'POST',
      headers: { apikey: ingestionKey, 'content-type': 'application/json' },
      body: JSON.stringify({ lines: [{ line: text }] }),
    });
    await response.text();
    const acknowledged = performance.now();
    const deadline = acknowledged + 5000;
    while (!seen.has(text) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 1));
    // Negative when the line reached the tail before its acknowledgement reached the sender.
    latencies.push((seen.get(text) ?? Number.POSITIVE_INFINITY) - acknowledged);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  socket.close();
  return latencies.sort((a, b) => a - b);
}

/** Line acknowledged → immediate presence alert delivered to a webhook: one view per sample. */
async function alertLatency(url: string, ingestionKey: string, serviceKey: string, samples: number): Promise<number[]> {
  const arrivals = new Map<string, number>();
  const receiver = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      arrivals.set(JSON.parse(body).name, performance.now());
      response.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/`;
  const viewIds: string[] = [];
  for (let i = 0; i < samples; i++) {
    const response = await fetch(`${url}/v1/config/view`, {
      method: 'POST',
      headers: { servicekey: serviceKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `alertbench${i}`, query: `alertbench${i}`, channels: [{ integration: 'webhook', url: hook, triggerlimit: 1, triggerinterval: '30', immediate: true, terminal: false }] }),
    });
    if (response.status !== 200) throw new Error(`view: ${await response.text()}`);
    viewIds.push(((await response.json()) as { viewid: string }).viewid);
  }
  const latencies: number[] = [];
  for (let i = 0; i < samples; i++) {
    const response = await fetch(`${url}/logs/ingest?hostname=bench`, {
      method: 'POST',
      headers: { apikey: ingestionKey, 'content-type': 'application/json' },
      body: JSON.stringify({ lines: [{ line: `alertbench${i} fired` }] }),
    });
    await response.text();
    const acknowledged = performance.now();
    const deadline = acknowledged + 10_000;
    while (!arrivals.has(`alertbench${i}`) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 2));
    latencies.push((arrivals.get(`alertbench${i}`) ?? Number.POSITIVE_INFINITY) - acknowledged);
  }
  receiver.close();
  // The views go again, so that the large ingest after this is not also evaluated against them.
  for (const viewid of viewIds) await fetch(`${url}/v1/config/view/${viewid}`, { method: 'DELETE', headers: { servicekey: serviceKey } });
  return latencies.sort((a, b) => a - b);
}

async function firstResults(url: string, serviceKey: string, from: number, to: number): Promise<number> {
  const range = `from=${from}&to=${to}`;
  const started = performance.now();
  await Promise.all(
    [`/v2/export?${range}&size=500&prefer=tail`, `/v1/histogram?${range}&buckets=60`, `/v1/viewer/facets?${range}`].map(async (path) => {
      const response = await fetch(`${url}${path}`, { headers: { servicekey: serviceKey } });
      if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
      await response.arrayBuffer();
    }),
  );
  return performance.now() - started;
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-viewer-bench-'));
  console.log(`bench/viewer: ${TOTAL.toLocaleString('en')} lines, ${SAMPLES} live-tail samples; ${os.cpus().length} cores, Node ${process.version}`);
  const server = await startLogsteadServer({ LOGSTEAD_DATA_DIR: dataDir, LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS: 'true' });
  const credentials = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
  try {
    const tail = await tailLatency(server.url, credentials.ingestionKey, credentials.serviceKey);
    const alerts = await alertLatency(server.url, credentials.ingestionKey, credentials.serviceKey, options.quick ? 30 : 100);
    const spanMs = 23 * 3_600_000;
    const spanStart = Date.now() - spanMs;
    const ingested = await ingestDataset(server.url, credentials.ingestionKey, TOTAL, spanStart, spanMs);
    console.log(`  ingested in ${ingested.seconds.toFixed(0)} s`);
    const times: Record<string, number> = {};
    for (const [name, hours] of [['last hour', 1], ['last 24 hours', 24]] as const) {
      const to = Date.now();
      await firstResults(server.url, credentials.serviceKey, to - hours * 3_600_000, to); // warm-up
      const runs = [];
      for (let i = 0; i < RUNS; i++) runs.push(await firstResults(server.url, credentials.serviceKey, to - hours * 3_600_000, to));
      times[name] = median(runs);
    }
    console.log('');
    console.log('| measure | value |');
    console.log('|---|---:|');
    console.log(`| line acknowledged → seen by a live-tail client, p50 | ${percentile(tail, 50).toFixed(1)} ms |`);
    console.log(`| line acknowledged → seen by a live-tail client, p99 | ${percentile(tail, 99).toFixed(1)} ms |`);
    console.log(`| line acknowledged → immediate alert at a webhook, p50 | ${percentile(alerts, 50).toFixed(1)} ms |`);
    console.log(`| line acknowledged → immediate alert at a webhook, p99 | ${percentile(alerts, 99).toFixed(1)} ms |`);
    for (const [name, ms] of Object.entries(times)) console.log(`| first results over ${TOTAL.toLocaleString('en')} lines, ${name} (median) | ${ms.toFixed(0)} ms |`);
    const summary = { date: new Date().toISOString(), lines: TOTAL, tailP50Ms: percentile(tail, 50), tailP99Ms: percentile(tail, 99), alertP50Ms: percentile(alerts, 50), alertP99Ms: percentile(alerts, 99), firstResultsMs: times };
    const resultsDir = path.join(root, 'bench/results');
    fs.mkdirSync(resultsDir, { recursive: true });
    const file = path.join(resultsDir, `viewer-${summary.date.replace(/[:.]/g, '-')}.json`);
    fs.writeFileSync(file, JSON.stringify(summary, null, 2) + '\n');
    console.log(`\nresults written to ${path.relative(root, file)}`);
  } finally {
    await stopProcess(server.child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
