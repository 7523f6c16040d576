/**
 * bench/ingest's fleet mode (issue 42): N senders, each with one request in flight, as a fleet of
 * agents sends, rather than 8 connections in a closed loop. For each fleet design (senders × lines
 * a body) it loads a fixed number of lines into the parse-and-discard ceiling and into a fresh
 * Logstead (and, with --compare-dir, into another checkout's, in alternating order), and prints
 * lines/s, server CPU per acknowledged line, acknowledgement p50/p99, rows per insert (the
 * server's own flush counters), peak and median RSS, and the data folder's bytes on disk per raw
 * byte right after the load and --settle-seconds later. Usage:
 *   node dist/bench/ingest/run.js --fleet [--designs 32x1000,200x150] [--lines 3000000] [--runs 1]
 *        [--settle-seconds 30] [--compare-dir <checkout>] [--env K=V,...] [--compare-env K=V,...]
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLogsteadServer, startProcess, stopProcess } from '../lib/processes.js';
import { cpuSeconds, cpuSecondsByThread, residentMiB, rssMiB } from '../lib/rss.js';
import { median, percentile } from '../lib/stats.js';
import { loadBodies, postIngest } from '../lib/ingest-request.js';

export interface FleetOptions {
  /** Designs as "<senders>x<lines a body>", comma-separated. */
  designs: string;
  linesPerDesign: number;
  runs: number;
  settleSeconds: number;
  /** Another built checkout, loaded in turn with this one (the "before" side). */
  compareDir?: string;
  /** Extra environment for this checkout's server, and for the other side's. */
  env: Record<string, string>;
  compareEnv: Record<string, string>;
}

interface FleetDesign {
  senders: number;
  linesPerBody: number;
}

interface FleetLoad {
  lines: number;
  seconds: number;
  linesPerSecond: number;
  cpuMicrosPerLine: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** Resident memory just before the load, and its peak and median during it. */
  idleRssMiB: number;
  peakRssMiB: number;
  /** Of the peak, what was mapped from files: the engine's library and Node's own code, mostly. */
  peakFileRssMiB: number;
  medianRssMiB: number;
  /** Logstead only, from its /metrics every second: the highest V8 heap (committed) and external memory (MiB). */
  peakHeapMiB?: number;
  peakExternalMiB?: number;
  /** Logstead only: the most memory its running merges held at once (MiB), and the most merges running at once. */
  peakMergeMemoryMiB?: number;
  peakMerges?: number;
  /** Logstead only: the most active parts the log table had at once (what a search reads across). */
  peakParts?: number;
  /** The server's CPU per acknowledged line by thread name (µs), largest first: where a line's CPU goes. */
  cpuMicrosByThread: Record<string, number>;
}

interface ServerFigures extends FleetLoad {
  side: string;
  rowsPerInsert: number;
  /** The data folder's bytes on disk (allocated blocks, every file) per raw JSON byte acknowledged. */
  diskPerRawByte: number;
  diskPerRawByteSettled: number;
  /** The same for the log table's active parts alone (logstead_store_bytes_on_disk). */
  activePerRawByte: number;
  activePerRawByteSettled: number;
  /** The log table's active parts right after the load, and after the settle. */
  partsAfter: number;
  partsSettled: number;
}

const root = fileURLToPath(new URL('../../../', import.meta.url));
const discardServer = fileURLToPath(new URL('./discard-server.js', import.meta.url));

function parseDesigns(text: string): FleetDesign[] {
  return text.split(',').map((part) => {
    const match = /^(\d+)x(\d+)$/.exec(part.trim());
    if (!match) throw new Error(`--designs takes designs like 32x1000,200x150 (senders x lines a body), not "${part}"`);
    return { senders: Number(match[1]), linesPerBody: Number(match[2]) };
  });
}

/** Bytes a folder takes on disk: allocated blocks of every file under it, as `du` counts them. */
export function diskBytes(dir: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    try {
      if (entry.isDirectory()) total += diskBytes(file);
      else total += fs.lstatSync(file).blocks * 512;
    } catch {
      // Removed while walking (a merge's source part, a temporary file): not on disk any more.
    }
  }
  return total;
}

/**
 * Sends `total` lines from `senders` concurrent senders, each with one request in flight (its own
 * keep-alive connection). Times from the first send to the last answer; samples the server's RSS
 * every 200 ms.
 */
async function fleetLoad(
  url: string,
  key: string,
  design: FleetDesign,
  bodies: Buffer[],
  hostnames: string[],
  total: number,
  pid?: number,
  readsMetrics = false,
): Promise<FleetLoad> {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: design.senders });
  const latencies: number[] = [];
  const resident: Array<{ total: number; file: number }> = [];
  let claimed = 0;
  let acknowledged = 0;
  let errors = 0;
  let next = 0;
  const sender = async () => {
    while (claimed < total) {
      claimed += design.linesPerBody;
      const index = next++ % bodies.length;
      const started = performance.now();
      const status = await postIngest(agent, target, key, bodies[index], hostnames[index]);
      if (status === 200) {
        acknowledged += design.linesPerBody;
        latencies.push(performance.now() - started);
      } else {
        errors++;
        claimed -= design.linesPerBody;
        // A shed request is sent again after a pause, as an agent honouring Retry-After would.
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  };
  const idleRssMiB = rssMiB(pid);
  const sampler = setInterval(() => resident.push(residentMiB(pid)), 200);
  // Where the memory is: V8's heap and Node's external memory, as the server reports them.
  let peakHeapMiB = 0;
  let peakExternalMiB = 0;
  let peakMergeMemoryMiB = 0;
  let peakMerges = 0;
  let peakParts = 0;
  const heapSampler = readsMetrics
    ? setInterval(() => {
        scrape(url)
          .then((metric) => {
            peakHeapMiB = Math.max(peakHeapMiB, metric('nodejs_heap_size_total_bytes') / 2 ** 20);
            peakExternalMiB = Math.max(peakExternalMiB, metric('nodejs_external_memory_bytes') / 2 ** 20);
            peakMergeMemoryMiB = Math.max(peakMergeMemoryMiB, metric('logstead_store_merges_memory_bytes') / 2 ** 20);
            peakMerges = Math.max(peakMerges, metric('logstead_store_merges_running'));
            peakParts = Math.max(peakParts, metric('logstead_store_parts'));
          })
          .catch(() => undefined);
      }, 1000)
    : undefined;
  const cpuBegin = cpuSeconds(pid);
  const threadsBegin = cpuSecondsByThread(pid);
  const begin = performance.now();
  await Promise.all(Array.from({ length: design.senders }, sender));
  const seconds = (performance.now() - begin) / 1000;
  const cpuUsed = cpuSeconds(pid) - cpuBegin;
  const threadsEnd = cpuSecondsByThread(pid);
  clearInterval(sampler);
  clearInterval(heapSampler);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const peak = resident.reduce((highest, sample) => (sample.total > highest.total ? sample : highest), { total: 0, file: 0 });
  return {
    lines: acknowledged,
    seconds,
    linesPerSecond: acknowledged / seconds,
    cpuMicrosPerLine: acknowledged > 0 ? (cpuUsed * 1e6) / acknowledged : 0,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    errors,
    idleRssMiB,
    peakRssMiB: peak.total,
    peakFileRssMiB: peak.file,
    medianRssMiB: resident.length > 0 ? median(resident.map((sample) => sample.total)) : 0,
    ...(readsMetrics ? { peakHeapMiB, peakExternalMiB, peakMergeMemoryMiB, peakMerges, peakParts } : {}),
    cpuMicrosByThread: Object.fromEntries(
      [...threadsEnd]
        .map(([name, seconds]) => [name, round((acknowledged > 0 ? ((seconds - (threadsBegin.get(name) ?? 0)) * 1e6) / acknowledged : 0), 2)] as const)
        .filter(([, micros]) => micros >= 0.05)
        .sort((a, b) => b[1] - a[1]),
    ),
  };
}

/** A counter or gauge from the server's /metrics (summed over its labels). */
async function scrape(url: string): Promise<(name: string) => number> {
  const text = await (await fetch(new URL('/metrics', url))).text();
  return (name) =>
    text
      .split('\n')
      .filter((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`))
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

async function loadServer(
  side: string,
  serverDir: string | undefined,
  env: Record<string, string>,
  design: FleetDesign,
  bodies: Buffer[],
  hostnames: string[],
  rawBytesPerLine: number,
  options: FleetOptions,
): Promise<ServerFigures> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-fleet-'));
  const server = await startLogsteadServer({ ...env, LOGSTEAD_DATA_DIR: dataDir }, serverDir);
  try {
    const { ingestionKey } = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
    const load = await fleetLoad(server.url, ingestionKey, design, bodies, hostnames, options.linesPerDesign, server.child.pid, true);
    const rawBytes = load.lines * rawBytesPerLine;
    const after = await scrape(server.url);
    const disk = diskBytes(dataDir);
    const active = after('logstead_store_bytes_on_disk');
    await new Promise((resolve) => setTimeout(resolve, options.settleSeconds * 1000));
    const settled = await scrape(server.url);
    const diskSettled = diskBytes(dataDir);
    return {
      side,
      ...load,
      rowsPerInsert: after('logstead_ingest_flushed_lines_total') / Math.max(1, after('logstead_ingest_flush_duration_seconds_count')),
      diskPerRawByte: disk / rawBytes,
      diskPerRawByteSettled: diskSettled / rawBytes,
      activePerRawByte: active / rawBytes,
      activePerRawByteSettled: settled('logstead_store_bytes_on_disk') / rawBytes,
      partsAfter: after('logstead_store_parts'),
      partsSettled: settled('logstead_store_parts'),
    };
  } finally {
    await stopProcess(server.child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const round = (value: number, digits = 0) => Number(value.toFixed(digits));

function describe(figures: ServerFigures, ceiling: FleetLoad, settleSeconds: number): string {
  return (
    `${Math.round(figures.linesPerSecond).toLocaleString('en')} lines/s (${(figures.linesPerSecond / ceiling.linesPerSecond).toFixed(3)} of the ceiling), ` +
    `${figures.cpuMicrosPerLine.toFixed(1)} µs CPU a line, ack p50/p99 ${figures.p50Ms.toFixed(0)}/${figures.p99Ms.toFixed(0)} ms, ` +
    `${Math.round(figures.rowsPerInsert).toLocaleString('en')} rows an insert, RSS idle ${Math.round(figures.idleRssMiB)}, peak/median ${Math.round(figures.peakRssMiB)}/${Math.round(figures.medianRssMiB)} MiB ` +
    `(mapped from files ${Math.round(figures.peakFileRssMiB)} at the peak, V8 heap up to ${Math.round(figures.peakHeapMiB ?? 0)}, external up to ${Math.round(figures.peakExternalMiB ?? 0)}, ` +
      `merges up to ${Math.round(figures.peakMergeMemoryMiB ?? 0)} in ${figures.peakMerges ?? 0} at once), ` +
    `disk per raw byte ${figures.diskPerRawByte.toFixed(2)} → ${figures.diskPerRawByteSettled.toFixed(2)} after ${settleSeconds} s ` +
    `(of it active parts' bytes ${figures.activePerRawByte.toFixed(2)} → ${figures.activePerRawByteSettled.toFixed(2)}), ` +
    `active parts up to ${figures.peakParts ?? 0} during the load, ${figures.partsAfter} → ${figures.partsSettled} after, ${figures.errors} non-200`
  );
}

export async function runFleet(options: FleetOptions): Promise<void> {
  const designs = parseDesigns(options.designs);
  const sides = options.compareDir
    ? [
        { side: 'before', dir: options.compareDir, env: options.compareEnv },
        { side: 'after', dir: undefined, env: options.env },
      ]
    : [{ side: 'this build', dir: undefined, env: options.env }];
  console.log(
    `bench/ingest fleet: ${designs.map((d) => `${d.senders} senders × ${d.linesPerBody} lines`).join(', ')}; ${options.linesPerDesign.toLocaleString('en')} lines a load, ` +
      `${options.runs} run(s), sides ${sides.map((s) => s.side).join(' / ')}; ${os.cpus().length} cores, Node ${process.version}`,
  );
  const results: Array<{ design: string; run: number; ceiling: FleetLoad; servers: ServerFigures[] }> = [];
  for (let run = 1; run <= options.runs; run++) {
    for (const design of designs) {
      const name = `${design.senders}x${design.linesPerBody}`;
      const { bodies, hostnames, rawBytesPerLine } = loadBodies(design.linesPerBody, Math.max(60, Math.ceil(60_000 / design.linesPerBody)));
      const discard = await startProcess(discardServer, [], {});
      const ceiling = await fleetLoad(discard.url, 'none', design, bodies, hostnames, options.linesPerDesign, discard.child.pid);
      await stopProcess(discard.child);
      console.log(`  run ${run}, ${name}: ceiling ${Math.round(ceiling.linesPerSecond).toLocaleString('en')} lines/s, ${ceiling.cpuMicrosPerLine.toFixed(2)} µs CPU a line, RSS idle ${Math.round(ceiling.idleRssMiB)}, peak ${Math.round(ceiling.peakRssMiB)} MiB`);
      // Alternate which side goes first, so neither always meets the machine in the same state.
      const ordered = run % 2 === 1 ? sides : [...sides].reverse();
      const servers = [];
      for (const side of ordered) {
        const figures = await loadServer(side.side, side.dir, side.env, design, bodies, hostnames, rawBytesPerLine, options);
        console.log(`  run ${run}, ${name}, ${side.side}: ${describe(figures, ceiling, options.settleSeconds)}`);
        console.log(`    CPU µs a line by thread: ${Object.entries(figures.cpuMicrosByThread).map(([thread, micros]) => `${thread} ${micros}`).join(', ')}`);
        servers.push(figures);
      }
      results.push({ design: name, run, ceiling, servers });
    }
  }
  summarise(results, sides.map((s) => s.side), options);
}

function summarise(
  results: Array<{ design: string; run: number; ceiling: FleetLoad; servers: ServerFigures[] }>,
  sides: string[],
  options: FleetOptions,
): void {
  const summary = [...new Set(results.map((r) => r.design))].flatMap((design) => {
    const ofDesign = results.filter((r) => r.design === design);
    const ceiling = median(ofDesign.map((r) => r.ceiling.linesPerSecond));
    const ceilingCpu = median(ofDesign.map((r) => r.ceiling.cpuMicrosPerLine));
    return sides.map((side) => {
      const figures = ofDesign.map((r) => r.servers.find((s) => s.side === side)!);
      const m = (pick: (f: ServerFigures) => number) => median(figures.map(pick));
      const highest = figures.reduce((top, f) => (f.peakRssMiB > top.peakRssMiB ? f : top));
      return {
        design,
        side,
        ceilingLinesPerSecond: Math.round(ceiling),
        ceilingCpuMicrosPerLine: round(ceilingCpu, 2),
        linesPerSecond: Math.round(m((f) => f.linesPerSecond)),
        ratio: round(m((f) => f.linesPerSecond) / ceiling, 3),
        cpuMicrosPerLine: round(m((f) => f.cpuMicrosPerLine), 1),
        p50Ms: round(m((f) => f.p50Ms)),
        p99Ms: round(m((f) => f.p99Ms)),
        rowsPerInsert: Math.round(m((f) => f.rowsPerInsert)),
        peakRssMiB: Math.round(highest.peakRssMiB),
        peakFileRssMiB: Math.round(highest.peakFileRssMiB),
        medianRssMiB: Math.round(m((f) => f.medianRssMiB)),
        diskPerRawByte: round(m((f) => f.diskPerRawByte), 2),
        diskPerRawByteSettled: round(m((f) => f.diskPerRawByteSettled), 2),
        activePerRawByteSettled: round(m((f) => f.activePerRawByteSettled), 2),
        errors: figures.reduce((sum, f) => sum + f.errors, 0),
      };
    });
  });
  console.log('');
  console.log(`| design | side | lines/s (ratio to ceiling) | server CPU µs a line | ack p50 / p99 ms | rows an insert | RSS peak / median MiB | disk per raw byte, after → ${options.settleSeconds} s later | non-200 |`);
  console.log('|---|---|---:|---:|---|---:|---|---|---:|');
  for (const row of summary) {
    console.log(
      `| ${row.design} | ${row.side} | ${row.linesPerSecond.toLocaleString('en')} (${row.ratio}) | ${row.cpuMicrosPerLine} | ${row.p50Ms} / ${row.p99Ms} | ` +
        `${row.rowsPerInsert.toLocaleString('en')} | ${row.peakRssMiB} / ${row.medianRssMiB} | ${row.diskPerRawByte} → ${row.diskPerRawByteSettled} | ${row.errors} |`,
    );
  }
  console.log(`(medians of ${options.runs} run(s); the ceiling: ${summary.map((r) => r.design).filter((d, i, a) => a.indexOf(d) === i).map((d) => `${d} ${summary.find((r) => r.design === d)!.ceilingLinesPerSecond.toLocaleString('en')} lines/s`).join(', ')})`);
  const date = new Date().toISOString();
  const resultsDir = path.join(root, 'bench/results');
  fs.mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `fleet-${date.replace(/[:.]/g, '-')}.json`);
  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  fs.writeFileSync(file, JSON.stringify({ date, machine, options, summary, runs: results }, null, 2) + '\n');
  console.log(`\nresults written to ${path.relative(root, file)}`);
}
