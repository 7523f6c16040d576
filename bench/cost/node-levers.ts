/**
 * The Node-side levers of issue 19, on bench/ingest's bodies:
 *  1. parsing without an object per line: JSON.parse of the body against the offsets-only scan of
 *     lazy-scan.ts, and against that scan plus slicing out every line's `line` string (the least a
 *     real lazy parser would then do per line);
 *  2. worker threads: the whole Node stage (JSON.parse, normaliseLine, meta types, encodeRow)
 *     run by N worker threads fed bodies from the main thread, in lines/s and CPU per line.
 *
 *   node dist/bench/cost/node-levers.js [--bodies 200] [--seconds 8]
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { median } from '../lib/stats.js';
import { LINES_PER_BODY, ingestBodies, machine, machineLoad, ownCpuMicros } from './common.js';
import { scanLines, stringValue } from './lazy-scan.js';
import { nodePipeline } from './node-stages.js';

const { values: options } = parseArgs({
  options: { bodies: { type: 'string', default: '200' }, seconds: { type: 'string', default: '8' }, workers: { type: 'string', default: '1,2,3' } },
});
const root = fileURLToPath(new URL('../../../', import.meta.url));

function timePerLine(bodies: Buffer[], work: (body: Buffer) => void): number {
  const samples: number[] = [];
  for (let round = 0; round < 7; round++) {
    const cpu0 = ownCpuMicros();
    for (const body of bodies) work(body);
    samples.push((ownCpuMicros() - cpu0) / (bodies.length * LINES_PER_BODY));
  }
  return median(samples.slice(2)); // the first rounds warm the JIT
}

async function workersRun(count: number, bodies: Buffer[], hostnames: string[], seconds: number) {
  const script = fileURLToPath(import.meta.url);
  const workers = Array.from({ length: count }, () => new Worker(script, { workerData: { role: 'worker' } }));
  let lines = 0;
  let measuring = false;
  let stopped = false;
  let next = 0;
  const inFlight = 2; // bodies queued per worker, so none waits for the main thread
  const feed = (worker: Worker) => {
    const index = next++ % bodies.length;
    worker.postMessage({ body: bodies[index], hostname: hostnames[index] });
  };
  const done = new Promise<void>((resolve) => {
    let closed = 0;
    for (const worker of workers) {
      worker.on('message', (message: { lines: number; payload: Uint8Array }) => {
        if (measuring) lines += message.lines;
        if (!stopped) feed(worker);
        else if (++closed === workers.length * inFlight) resolve();
      });
      for (let i = 0; i < inFlight; i++) feed(worker);
    }
  });
  await new Promise((resolve) => setTimeout(resolve, 1500));
  measuring = true;
  const cpu0 = ownCpuMicros();
  const t0 = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const counted = lines;
  const cpu = ownCpuMicros() - cpu0;
  const elapsed = (performance.now() - t0) / 1000;
  stopped = true;
  await done;
  await Promise.all(workers.map((worker) => worker.terminate()));
  return { workers: count, linesPerSecond: Math.round(counted / elapsed), cpuMicrosPerLine: Number((cpu / counted).toFixed(2)), cores: Number((cpu / 1e6 / elapsed).toFixed(2)) };
}

async function workerMain() {
  const pipeline = await nodePipeline();
  parentPort!.on('message', async ({ body, hostname }: { body: Uint8Array; hostname: string }) => {
    let payload: Buffer = Buffer.alloc(0);
    const stages = await pipeline.run([Buffer.from(body.buffer, body.byteOffset, body.byteLength)], [hostname], (rows: Buffer) => (payload = rows));
    // The encoded rows go back to the main thread, as they would to the store's batcher.
    parentPort!.postMessage({ lines: stages.lines, payload });
  });
}

async function main() {
  const { bodies, hostnames } = ingestBodies(Number(options.bodies));
  console.log(`bench/cost node levers: ${bodies.length} bodies of ${LINES_PER_BODY} lines; ${machine()}; ${machineLoad()}`);
  const spans = new Int32Array(LINES_PER_BODY * 64);
  const starts = new Int32Array(LINES_PER_BODY + 1);
  let sink = 0;
  const parse = timePerLine(bodies, (body) => (sink += (JSON.parse(body.toString('utf8')) as { lines: unknown[] }).lines.length));
  const toString = timePerLine(bodies, (body) => (sink += body.toString('utf8').length));
  const scan = timePerLine(bodies, (body) => (sink += scanLines(body.toString('utf8'), spans, starts)));
  const scanAndSlice = timePerLine(bodies, (body) => {
    const text = body.toString('utf8');
    const lines = scanLines(text, spans, starts);
    for (let n = 0; n < lines; n++) {
      for (let q = starts[n]; q < starts[n + 1]; q += 4) {
        // the "line" key: 6 characters with its quotes
        if (spans[q + 1] - spans[q] === 6 && text.startsWith('"line"', spans[q])) sink += stringValue(text, spans[q + 2], spans[q + 3]).length;
      }
    }
  });
  const pipeline = await nodePipeline();
  await pipeline.run(bodies, hostnames);
  const runs = [];
  for (let run = 0; run < 5; run++) runs.push(await pipeline.run(bodies, hostnames));
  const whole = median(runs.map((s) => (s.parse + s.normalise + s.metaTypes + s.encode) / s.lines));
  await pipeline.close();
  console.log(`| parsing one line of a body | CPU µs |\n|---|---:|`);
  console.log(`| Buffer to string only | ${toString.toFixed(2)} |`);
  console.log(`| JSON.parse (today) | ${parse.toFixed(2)} |`);
  console.log(`| offsets-only scan, no object per line | ${scan.toFixed(2)} |`);
  console.log(`| offsets-only scan + slicing each line's text | ${scanAndSlice.toFixed(2)} |`);
  console.log(`| the whole Node stage today (parse, normalise, meta types, encode) | ${whole.toFixed(2)} |`);

  const workerResults = [];
  const single = { workers: 0, ...(await (async () => {
    // The same work on the main thread alone, for the same window, as the baseline.
    const p = await nodePipeline();
    let lines = 0;
    const cpu0 = ownCpuMicros();
    const t0 = performance.now();
    for (let i = 0; performance.now() - t0 < Number(options.seconds) * 1000; i++) lines += (await p.run([bodies[i % bodies.length]], [hostnames[i % bodies.length]])).lines;
    const elapsed = (performance.now() - t0) / 1000;
    const cpu = ownCpuMicros() - cpu0;
    await p.close();
    return { linesPerSecond: Math.round(lines / elapsed), cpuMicrosPerLine: Number((cpu / lines).toFixed(2)), cores: Number((cpu / 1e6 / elapsed).toFixed(2)) };
  })()) };
  workerResults.push(single);
  for (const count of options.workers!.split(',').map(Number)) workerResults.push(await workersRun(count, bodies, hostnames, Number(options.seconds)));
  console.log(`\n| Node stage on | lines/s | CPU µs/line | cores busy |\n|---|---:|---:|---:|`);
  for (const r of workerResults) console.log(`| ${r.workers === 0 ? 'main thread only' : `${r.workers} worker thread(s)`} | ${r.linesPerSecond.toLocaleString('en')} | ${r.cpuMicrosPerLine} | ${r.cores} |`);
  const date = new Date().toISOString();
  const file = path.join(root, 'bench/results', `node-levers-${date.replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify({ date, machine: machine(), load: machineLoad(), parseMicrosPerLine: { toString, parse, scan, scanAndSlice, wholeNodeStage: whole }, workers: workerResults, sink: sink > 0 }, null, 2) + '\n');
  console.log(`${machineLoad()}; results written to ${path.relative(root, file)}`);
}

if (isMainThread) await main();
else if ((workerData as { role?: string })?.role === 'worker') void workerMain();
