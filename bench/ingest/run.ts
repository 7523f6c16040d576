/**
 * bench/ingest: sustained ingestion of 1,000-line bodies over keep-alive connections, against
 * Logstead and, in the same run, against a server that only parses and discards (the ceiling).
 * Prints lines/s, p50 and p99 acknowledgement latency, and the ratio to the ceiling, as medians
 * of several runs; then one long sustained run that records memory (RSS) and throughput every
 * second, drawn as a chart. Usage:
 *   node dist/bench/ingest/run.js [--quick] [--runs N] [--seconds S] [--sustained-seconds S] [--connections C]
 * With --fleet, a fleet of senders instead (fleet.ts says how).
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startLogsteadServer, startProcess, stopProcess } from '../lib/processes.js';
import { cpuSeconds, rssMiB } from '../lib/rss.js';
import { median, percentile } from '../lib/stats.js';
import { timelineChart } from '../lib/timeline-chart.js';
import { loadBodies, postIngest } from '../lib/ingest-request.js';
import { runFleet } from './fleet.js';

const { values: options } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    runs: { type: 'string' },
    seconds: { type: 'string' },
    'sustained-seconds': { type: 'string' },
    connections: { type: 'string', default: '8' },
    /** Another checkout's server, for a before/after comparison on the same load. */
    'server-dir': { type: 'string' },
    /** Each connection pauses this long after an answer before its next request: a paced, lighter load. */
    'pause-ms': { type: 'string', default: '0' },
    /** Only the current design, not today's and the earlier one side by side. */
    'current-only': { type: 'boolean', default: false },
    /** Fleet mode (fleet.ts): senders, each with one request in flight, instead of the closed loop. */
    fleet: { type: 'boolean', default: false },
    /** Fleet mode: the designs, senders x lines a body. */
    designs: { type: 'string', default: '32x1000,200x150' },
    /** Fleet mode: lines sent to each server in each design. */
    lines: { type: 'string', default: '3000000' },
    /** Fleet mode: the second reading of the data folder's size comes this long after the load. */
    'settle-seconds': { type: 'string', default: '30' },
    /** Fleet mode: another built checkout, loaded in turn with this one (the "before" side). */
    'compare-dir': { type: 'string' },
    /** Fleet mode: extra environment for this build's server, and for the compared one's (K=V,K=V). */
    env: { type: 'string', default: '' },
    'compare-env': { type: 'string', default: '' },
  },
});
// A comma starts the next setting only before NAME=, so a value may hold commas (JE_MALLOC_CONF=a:1,b:2).
const keyValues = (text: string): Record<string, string> =>
  Object.fromEntries(text.split(/,(?=[A-Za-z_][A-Za-z0-9_]*=)/).filter(Boolean).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
if (options.fleet) {
  await runFleet({
    designs: options.designs!,
    linesPerDesign: Number(options.lines),
    runs: Number(options.runs ?? 1),
    settleSeconds: Number(options['settle-seconds']),
    compareDir: options['compare-dir'],
    env: keyValues(options.env ?? ''),
    compareEnv: keyValues(options['compare-env'] ?? ''),
  });
  process.exit(0);
}
const runs = Number(options.runs ?? 3);
const seconds = Number(options.seconds ?? (options.quick ? 4 : 20));
/** 0 leaves the sustained run (and its memory figures and chart) out. */
const sustainedSeconds = Number(options['sustained-seconds'] ?? (options.quick ? 10 : 300));
if (!Number.isFinite(sustainedSeconds) || sustainedSeconds < 0) throw new Error(`--sustained-seconds takes 0 or more seconds, not "${options['sustained-seconds']}"`);
const connections = Number(options.connections);
const pauseMs = Number(options['pause-ms']);
if (!Number.isFinite(pauseMs) || pauseMs < 0) throw new Error(`--pause-ms takes 0 or more milliseconds, not "${options['pause-ms']}"`);
const LINES_PER_BODY = 1000;

/**
 * The designs each run loads, side by side: the current one last; earlier ones by the settings that
 * bring them back, so one build measures both on the same load (issue 30 asks for the table).
 */
const DESIGNS: Array<{ name: string; env: Record<string, string> }> = [
  { name: 'before issue 30: group commit writes at once', env: { LOGSTEAD_GROUP_COMMIT_MS: '0' } },
  { name: 'now: group commit gathers (100 ms budget)', env: {} },
];
const designs = options['current-only'] ? DESIGNS.slice(-1) : DESIGNS;
const WARMUP_MS = options.quick ? 1000 : 3000;

const root = fileURLToPath(new URL('../../../', import.meta.url));
const discardServer = fileURLToPath(new URL('./discard-server.js', import.meta.url));

interface LoadResult {
  linesPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** Per second of the measuring window: throughput, p99 latency and the server's RSS. */
  timeline: Array<{ second: number; linesPerSecond: number; p99Ms: number; rssMiB: number }>;
  maxRssMiB: number;
  /** The server process's CPU time (all its threads, the engine's included) per counted line. */
  cpuMicrosPerLine: number;
}

async function load(url: string, key: string, bodies: Buffer[], hostnames: string[], pid?: number, window = seconds): Promise<LoadResult> {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const latencies: number[] = [];
  let lines = 0;
  let errors = 0;
  let measuring = false;
  let stopped = false;
  let next = 0;
  let secondLines = 0;
  let secondLatencies: number[] = [];
  const timeline: LoadResult['timeline'] = [];

  const send = (body: Buffer, hostname: string) => postIngest(agent, target, key, body, hostname);

  const worker = async () => {
    while (!stopped) {
      const index = next++ % bodies.length;
      const started = performance.now();
      const status = await send(bodies[index], hostnames[index]);
      const latency = performance.now() - started;
      // Spread over half to one and a half times the pause, as independent senders would be.
      if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs * (0.5 + Math.random())));
      if (!measuring || stopped) continue;
      if (status === 200) {
        lines += LINES_PER_BODY;
        latencies.push(latency);
        secondLines += LINES_PER_BODY;
        secondLatencies.push(latency);
      } else {
        errors++;
      }
    }
  };
  const workers = Array.from({ length: connections }, worker);
  await new Promise((resolve) => setTimeout(resolve, WARMUP_MS));
  measuring = true;
  const begin = performance.now();
  const cpuBegin = cpuSeconds(pid);
  secondLines = 0;
  secondLatencies = [];
  const sampler = setInterval(() => {
    secondLatencies.sort((a, b) => a - b);
    timeline.push({ second: timeline.length + 1, linesPerSecond: secondLines, p99Ms: percentile(secondLatencies, 99) || 0, rssMiB: rssMiB(pid) });
    secondLines = 0;
    secondLatencies = [];
  }, 1000);
  await new Promise((resolve) => setTimeout(resolve, window * 1000));
  clearInterval(sampler);
  const elapsed = (performance.now() - begin) / 1000;
  const cpuUsed = cpuSeconds(pid) - cpuBegin;
  stopped = true;
  const counted = lines;
  await Promise.all(workers);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    linesPerSecond: counted / elapsed,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    errors,
    timeline,
    maxRssMiB: Math.max(0, ...timeline.map((point) => point.rssMiB)),
    cpuMicrosPerLine: counted > 0 ? (cpuUsed * 1e6) / counted : 0,
  };
}

interface DesignSummary {
  name: string;
  linesPerSecond: number;
  ratio: number;
  cpuMicrosPerLine: number;
  /** CPU per line over the parse-and-discard server's, in the same runs. */
  cpuRatio: number;
  p50Ms: number;
  p99Ms: number;
  maxRssMiB: number;
}

function designSummary(name: string, results: LoadResult[], ceiling: LoadResult[]): DesignSummary {
  const linesPerSecond = median(results.map((r) => r.linesPerSecond));
  const cpu = median(results.map((r) => r.cpuMicrosPerLine));
  return {
    name,
    linesPerSecond: Math.round(linesPerSecond),
    ratio: Number((linesPerSecond / median(ceiling.map((r) => r.linesPerSecond))).toFixed(3)),
    cpuMicrosPerLine: Number(cpu.toFixed(1)),
    cpuRatio: Number((cpu / median(ceiling.map((r) => r.cpuMicrosPerLine))).toFixed(1)),
    p50Ms: Number(median(results.map((r) => r.p50Ms)).toFixed(1)),
    p99Ms: Number(median(results.map((r) => r.p99Ms)).toFixed(1)),
    maxRssMiB: Math.round(Math.max(...results.map((r) => r.maxRssMiB))),
  };
}

/** One long run that samples RSS and throughput every second, so a leak shows as a rising line. */
async function sustainedRun(loadLogstead: (window: number) => Promise<LoadResult>) {
  console.log(`  sustained run: ${sustainedSeconds} s ...`);
  const sustained = await loadLogstead(sustainedSeconds);
  const rssOver = (from: number, to: number) => median(sustained.timeline.slice(from, to).map((point) => point.rssMiB));
  const minute = Math.min(60, Math.floor(sustained.timeline.length / 3));
  const memory = {
    seconds: sustainedSeconds,
    linesPerSecond: Math.round(sustained.linesPerSecond),
    cpuMicrosPerLine: Number(sustained.cpuMicrosPerLine.toFixed(1)),
    p99Ms: Number(sustained.p99Ms.toFixed(1)),
    maxRssMiB: Math.round(sustained.maxRssMiB),
    /** Median RSS over the first and the last minute (or third, in short runs): flat means close. */
    firstMinuteRssMiB: Math.round(rssOver(0, minute)),
    lastMinuteRssMiB: Math.round(rssOver(sustained.timeline.length - minute, sustained.timeline.length)),
  };
  console.log(
    `  sustained run: ${memory.linesPerSecond} lines/s, ${memory.cpuMicrosPerLine} µs server CPU per line, p99 ${memory.p99Ms} ms, RSS ${memory.firstMinuteRssMiB} MiB (first minute) → ` +
      `${memory.lastMinuteRssMiB} MiB (last minute), highest ${memory.maxRssMiB} MiB`,
  );

  return { memory, maxRssMiB: sustained.maxRssMiB, timeline: sustained.timeline };
}

async function main() {
  const { bodies, hostnames, rawBytesPerLine } = loadBodies(LINES_PER_BODY, 60);
  console.log(
    `bench/ingest: ${runs} runs × ${seconds}s, ${connections} keep-alive connections${pauseMs > 0 ? ` pausing ${pauseMs} ms after each answer` : ""}, ${LINES_PER_BODY}-line bodies, ` +
      `${rawBytesPerLine.toFixed(0)} raw JSON bytes per line; ${os.cpus().length} cores, Node ${process.version}`,
  );
  const ceiling: LoadResult[] = [];
  const logstead: LoadResult[] = [];
  /** Loads a fresh Logstead (own data directory) for `window` seconds. */
  const loadLogstead = async (window: number, env: Record<string, string> = {}): Promise<LoadResult> => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-bench-'));
    const server = await startLogsteadServer({ ...env, LOGSTEAD_DATA_DIR: dataDir }, options['server-dir']);
    const { ingestionKey } = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
    const result = await load(server.url, ingestionKey, bodies, hostnames, server.child.pid, window);
    await stopProcess(server.child);
    fs.rmSync(dataDir, { recursive: true, force: true });
    return result;
  };
  /** Per design (the current one last), its runs. */
  const byDesign: LoadResult[][] = designs.map(() => []);
  for (let run = 1; run <= runs; run++) {
    const discard = await startProcess(discardServer, [], {});
    ceiling.push(await load(discard.url, 'none', bodies, hostnames, discard.child.pid));
    await stopProcess(discard.child);
    for (const [index, design] of designs.entries()) {
      const result = await loadLogstead(seconds, design.env);
      byDesign[index].push(result);
      console.log(
        `  run ${run}, ${design.name}: ceiling ${Math.round(ceiling[run - 1].linesPerSecond)} lines/s, ` +
          `logstead ${Math.round(result.linesPerSecond)} lines/s, ${result.cpuMicrosPerLine.toFixed(1)} µs server CPU per line ` +
          `(ceiling ${ceiling[run - 1].cpuMicrosPerLine.toFixed(1)}), ratio ${(result.linesPerSecond / ceiling[run - 1].linesPerSecond).toFixed(3)} ` +
          `(p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms, ${result.errors} errors)`,
      );
    }
  }
  logstead.push(...byDesign[byDesign.length - 1]);

  const sustained = sustainedSeconds > 0 ? await sustainedRun(loadLogstead) : undefined;

  /** Every design's medians, side by side; the current one's are also the top-level figures. */
  const designSummaries = designs.map((design, index) => designSummary(design.name, byDesign[index], ceiling));
  const current = designSummaries[designSummaries.length - 1];
  const summary = {
    date: new Date().toISOString(),
    machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
    runs,
    seconds,
    connections,
    linesPerBody: LINES_PER_BODY,
    ceilingLinesPerSecond: Math.round(median(ceiling.map((r) => r.linesPerSecond))),
    logsteadLinesPerSecond: current.linesPerSecond,
    ratio: current.ratio,
    cpuMicrosPerLine: current.cpuMicrosPerLine,
    ceilingCpuMicrosPerLine: Number(median(ceiling.map((r) => r.cpuMicrosPerLine)).toFixed(1)),
    p50Ms: current.p50Ms,
    p99Ms: current.p99Ms,
    errors: logstead.reduce((sum, r) => sum + r.errors, 0),
    maxRssMiB: Math.max(current.maxRssMiB, Math.round(sustained?.maxRssMiB ?? 0)),
    memory: sustained?.memory,
    timeline: sustained?.timeline,
    designs: designSummaries,
  };
  console.log('');
  if (designs.length > 1) {
    console.log(`| measure (median of runs; ratio to the parse-and-discard ceiling) | ${designs.map((design) => design.name).join(' | ')} |`);
    console.log(`|---|${designs.map(() => '---:').join('|')}|`);
    const row = (label: string, cell: (d: DesignSummary) => string) => console.log(`| ${label} | ${summary.designs.map(cell).join(' | ')} |`);
    row('lines/s', (d) => `${d.linesPerSecond.toLocaleString('en')} (${d.ratio})`);
    row('server CPU per line, µs', (d) => `${d.cpuMicrosPerLine} (${d.cpuRatio}× the ceiling's)`);
    row('acknowledgement p50 / p99, ms', (d) => `${d.p50Ms} / ${d.p99Ms}`);
    row('server RSS, highest MiB', (d) => String(d.maxRssMiB));
    console.log('');
  }
  console.log('| measure (median of runs) | value |');
  console.log('|---|---:|');
  console.log(`| parse-and-discard ceiling | ${summary.ceilingLinesPerSecond.toLocaleString('en')} lines/s |`);
  console.log(`| Logstead sustained ingest | ${summary.logsteadLinesPerSecond.toLocaleString('en')} lines/s |`);
  console.log(`| ratio to ceiling | ${summary.ratio} |`);
  console.log(`| server CPU per line (all threads) | ${summary.cpuMicrosPerLine} µs (parse-and-discard: ${summary.ceilingCpuMicrosPerLine} µs) |`);
  console.log(`| acknowledgement latency p50 / p99 | ${summary.p50Ms} ms / ${summary.p99Ms} ms |`);
  console.log(`| non-200 answers | ${summary.errors} |`);
  console.log(`| server memory (RSS), highest | ${summary.maxRssMiB} MiB |`);
  if (sustained) console.log(`| sustained ${sustainedSeconds} s: RSS first → last minute | ${sustained.memory.firstMinuteRssMiB} → ${sustained.memory.lastMinuteRssMiB} MiB |`);
  const resultsDir = path.join(root, 'bench/results');
  fs.mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `ingest-${summary.date.replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify(summary, null, 2) + '\n');
  if (!sustained) {
    console.log(`\nresults written to ${path.relative(root, file)} (no sustained run: --sustained-seconds 0)`);
    return;
  }
  const chart = path.join(resultsDir, 'ingest-timeline.svg');
  fs.writeFileSync(chart, timelineChart(sustained.timeline, `Logstead sustained ingest, ${sustainedSeconds} s (${summary.date.slice(0, 10)}, ${connections} connections, 1,000-line bodies)`));
  console.log(`\nresults written to ${path.relative(root, file)}; throughput and latency over time in ${path.relative(root, chart)}`);
}

await main();
