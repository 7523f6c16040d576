/**
 * bench/remote: a node's own CPU per line in remote mode (LOGSTEAD_CLICKHOUSE_URL), where it only
 * parses, normalises and ships rows to ClickHouse, so its cost per line is what caps a node (issue
 * 13 point 5; target ≥ 150,000 lines/s per core of the node's own CPU).
 *
 * Each run, on the same machine: the parse-and-discard ceiling (bench/ingest/discard-server.ts),
 * then a fresh ClickHouse stand-in (clickhouse-stand-in.ts, the embedded engine behind
 * ClickHouse's HTTP interface, in a process of its own) and a fresh `logstead serve` pointed at
 * it, loaded the same way as bench/ingest (1,000-line bodies over keep-alive connections). The CPU
 * of the node and of the stand-in (user + system, all threads, from /proc) over the measuring
 * window is divided by the lines acknowledged in it. Prints medians of the runs and writes
 * bench/results/remote-<date>.json. Usage:
 *   node dist/bench/remote/run.js [--quick] [--runs N] [--seconds S] [--connections C] [--cpu-prof] [--server-dir DIR]
 * --cpu-prof adds one more run with the node under `node --cpu-prof` (not counted in the medians)
 * and prints where its main thread's time went.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type Started, startCommand, startLogsteadServer, startProcess, stopProcess } from '../lib/processes.js';
import { cpuSeconds, rssMiB } from '../lib/rss.js';
import { median, percentile } from '../lib/stats.js';
import { LOGS_TABLE } from '../../src/store/tables.js';
import { summariseProfile } from './profile-summary.js';
import { loadBodies, postIngest } from '../lib/ingest-request.js';
import { TEST_POSTGRES_URL, dropTestPostgres, testPostgresUrl } from '../../src/testing/config-database.js';

const { values: options } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    runs: { type: 'string' },
    seconds: { type: 'string' },
    connections: { type: 'string', default: '8' },
    'cpu-prof': { type: 'boolean', default: false },
    /** Another built checkout's server, for a before/after comparison on the same load. */
    'server-dir': { type: 'string' },
    /** Give the organisation an alert rule first (addAlertRule). */
    alert: { type: 'boolean', default: false },
    /** Keep the node's configuration in PostgreSQL, as a cluster node does, not in SQLite. */
    postgres: { type: 'boolean', default: false },
  },
});
const runs = Number(options.runs ?? (options.quick ? 2 : 3));
const seconds = Number(options.seconds ?? (options.quick ? 4 : 20));
const connections = Number(options.connections);
const LINES_PER_BODY = 1000;
const WARMUP_MS = options.quick ? 1000 : 3000;
/** Issue 13 point 5. */
const TARGET_LINES_PER_CORE = 150_000;

const root = fileURLToPath(new URL('../../../', import.meta.url));
const discardServer = fileURLToPath(new URL('../ingest/discard-server.js', import.meta.url));
const standIn = fileURLToPath(new URL('./clickhouse-stand-in.js', import.meta.url));

interface LoadResult {
  linesPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** Lines acknowledged in all, warm-up included (to check against the rows stored). */
  acknowledgedLines: number;
  /** CPU time (user + system, all threads) per line counted in the window, per watched process. */
  cpuMicrosPerLine: number[];
  /** The same of each watched process's main thread only (JavaScript runs there; GC helpers and libuv do not). */
  mainThreadMicrosPerLine: number[];
  /** The load generator's own CPU per line (this process). */
  loaderMicrosPerLine: number;
  /** Share of the machine's cores busy in the window (/proc/stat), everything on it included. */
  machineBusy: number;
  maxRssMiB: number[];
  /** The measuring window on the monotonic clock, in µs (V8 profiles time their samples on it). */
  windowUs: [number, number];
}

/** CPU seconds of a process's main thread (its task whose id is the pid), as bench/lib/rss.ts reads the process's. */
function mainThreadSeconds(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ
  } catch {
    return 0;
  }
}

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** Total and idle jiffies of the whole machine. */
function machineTicks(): { total: number; idle: number } {
  const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return { total: fields.reduce((sum, value) => sum + value, 0), idle: fields[3] + (fields[4] ?? 0) };
}

/** Keeps `connections` requests in flight for the warm-up and then `seconds`, and measures the window. */
async function load(url: string, key: string, bodies: Buffer[], hostnames: string[], pids: number[]): Promise<LoadResult> {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const latencies: number[] = [];
  let lines = 0;
  let acknowledged = 0;
  let errors = 0;
  let measuring = false;
  let stopped = false;
  let next = 0;
  const maxRss = pids.map(() => 0);

  const send = (body: Buffer, hostname: string) => postIngest(agent, target, key, body, hostname);

  const worker = async () => {
    while (!stopped) {
      const index = next++ % bodies.length;
      const started = performance.now();
      const status = await send(bodies[index], hostnames[index]);
      if (status === 200) acknowledged += LINES_PER_BODY;
      if (!measuring || stopped) continue;
      if (status === 200) {
        lines += LINES_PER_BODY;
        latencies.push(performance.now() - started);
      } else {
        errors++;
      }
    }
  };
  const workers = Array.from({ length: connections }, worker);
  await new Promise((resolve) => setTimeout(resolve, WARMUP_MS));
  measuring = true;
  const begin = performance.now();
  const windowStart = monotonicUs();
  const cpuBegin = pids.map((pid) => cpuSeconds(pid));
  const mainBegin = pids.map((pid) => mainThreadSeconds(pid));
  const loaderBegin = process.cpuUsage();
  const machineBegin = machineTicks();
  const sampler = setInterval(() => pids.forEach((pid, i) => (maxRss[i] = Math.max(maxRss[i], rssMiB(pid)))), 1000);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  clearInterval(sampler);
  const elapsed = (performance.now() - begin) / 1000;
  const windowEnd = monotonicUs();
  const cpuUsed = pids.map((pid, i) => cpuSeconds(pid) - cpuBegin[i]);
  const mainUsed = pids.map((pid, i) => mainThreadSeconds(pid) - mainBegin[i]);
  const loader = process.cpuUsage(loaderBegin);
  const machineEnd = machineTicks();
  stopped = true;
  const counted = lines;
  await Promise.all(workers);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const perLine = (cpuSecondsUsed: number) => (counted > 0 ? (cpuSecondsUsed * 1e6) / counted : Number.NaN);
  const totalTicks = machineEnd.total - machineBegin.total;
  return {
    linesPerSecond: counted / elapsed,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    errors,
    acknowledgedLines: acknowledged,
    cpuMicrosPerLine: cpuUsed.map(perLine),
    mainThreadMicrosPerLine: mainUsed.map(perLine),
    loaderMicrosPerLine: perLine((loader.user + loader.system) / 1e6),
    machineBusy: totalTicks > 0 ? 1 - (machineEnd.idle - machineBegin.idle) / totalTicks : Number.NaN,
    maxRssMiB: maxRss,
    windowUs: [windowStart, windowEnd],
  };
}

/** Rows in the active parts of the stand-in's log table: every acknowledged line must be there. */
async function storedRows(standInUrl: string): Promise<number> {
  const url = new URL(standInUrl);
  const database = url.pathname.slice(1);
  url.pathname = '/';
  url.username = '';
  url.password = '';
  url.searchParams.set('query', `SELECT sum(rows) FROM system.parts WHERE database = '${database}' AND table = '${LOGS_TABLE}' AND active`);
  const answer = await fetch(url, { method: 'POST' });
  return Number((await answer.text()).trim());
}

/** `logstead serve` as the bin script starts it (its allocator settings too), but under `node --cpu-prof` (not allowed in NODE_OPTIONS). */
function startProfiledLogstead(env: Record<string, string>, profileDir: string): Promise<Started> {
  const bin = options['server-dir'] ? path.resolve(options['server-dir'], 'bin/logstead.js') : path.join(root, 'bin/logstead.js');
  return startCommand(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, bin, 'serve'], { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072', LOGSTEAD_PORT: '0', LOGSTEAD_LOG_LEVEL: 'warn', ...env });
}

interface RemoteRun {
  load: LoadResult;
  storedRows: number;
}

/** A fresh stand-in and a fresh node on it, loaded for one window. */
/**
 * --alert: an organisation with an alert rule has every request's rows kept through its write and
 * matched against the rule, which the default run (no rule, no live tail) does not measure. The
 * rule counts lines with the word `reset` (about 0.3% of the benchmark's lines) and fires at
 * 100,000 in 30 s, which this load never reaches, so no delivery runs beside the ingest.
 */
async function addAlertRule(url: string, serviceKey: string): Promise<void> {
  const channel = { integration: 'email', emails: ['bench@example.com'], operator: 'presence', triggerlimit: 100_000, triggerinterval: '30', immediate: true, terminal: false };
  const answer = await fetch(new URL('/v1/config/view', url), {
    method: 'POST',
    headers: { servicekey: serviceKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench/remote alert', query: 'reset', channels: [channel] }),
  });
  if (!answer.ok) throw new Error(`the alert rule was refused: ${answer.status} ${await answer.text()}`);
}

async function remoteRun(bodies: Buffer[], hostnames: string[], profileDir?: string): Promise<RemoteRun> {
  const clickhouse = await startProcess(standIn, ['logstead'], {});
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-bench-remote-'));
  try {
    // --postgres: a fresh database for each run, on the server the tests use (its own CPU, like
    // the commits' fsyncs, is then PostgreSQL's, not the node's, and is not reported).
    const configuration: Record<string, string> = options.postgres ? { LOGSTEAD_DATABASE_URL: await testPostgresUrl(dataDir) } : {};
    const env = { LOGSTEAD_DATA_DIR: dataDir, LOGSTEAD_CLICKHOUSE_URL: clickhouse.url, ...configuration };
    const node = profileDir ? await startProfiledLogstead(env, profileDir) : await startLogsteadServer(env, options['server-dir']);
    const { ingestionKey, serviceKey } = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
    if (options.alert) await addAlertRule(node.url, serviceKey);
    const result = await load(node.url, ingestionKey, bodies, hostnames, [node.child.pid!, clickhouse.child.pid!]);
    await stopProcess(node.child);
    const rows = await storedRows(clickhouse.url);
    return { load: result, storedRows: rows };
  } finally {
    await stopProcess(clickhouse.child);
    if (options.postgres) await dropTestPostgres(dataDir);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const round = (value: number, digits: number) => Number(value.toFixed(digits));

async function main() {
  const { bodies, hostnames, rawBytesPerLine } = loadBodies(LINES_PER_BODY, 60);
  console.log(
    `bench/remote: ${runs} runs × ${seconds}s, ${connections} keep-alive connections, ${LINES_PER_BODY}-line bodies, ` +
      `${rawBytesPerLine.toFixed(0)} raw JSON bytes per line; node → ClickHouse stand-in (chDB over HTTP, own process); ` +
      `${options.alert ? 'the organisation has an alert rule; ' : ''}` +
      `${options.postgres ? `configuration in PostgreSQL (${new URL(TEST_POSTGRES_URL).host}); ` : ''}` +
      `${os.cpus().length} cores, Node ${process.version}, load average ${os.loadavg()[0].toFixed(2)}`,
  );
  const ceiling: LoadResult[] = [];
  const remote: RemoteRun[] = [];
  for (let run = 1; run <= runs; run++) {
    const discard = await startProcess(discardServer, [], {});
    ceiling.push(await load(discard.url, 'none', bodies, hostnames, [discard.child.pid!]));
    await stopProcess(discard.child);
    const result = await remoteRun(bodies, hostnames);
    remote.push(result);
    const [nodeMicros, clickhouseMicros] = result.load.cpuMicrosPerLine;
    const ceilingMicros = ceiling[run - 1].cpuMicrosPerLine[0];
    console.log(
      `  run ${run}: ${Math.round(result.load.linesPerSecond)} lines/s; node ${nodeMicros.toFixed(2)} µs/line ` +
        `(main thread ${result.load.mainThreadMicrosPerLine[0].toFixed(2)}; ${Math.round(1e6 / nodeMicros)} lines/s per core), ClickHouse ${clickhouseMicros.toFixed(2)} µs/line, ` +
        `load generator ${result.load.loaderMicrosPerLine.toFixed(2)} µs/line, machine ${(100 * result.load.machineBusy).toFixed(0)}% busy; ` +
        `ceiling ${Math.round(ceiling[run - 1].linesPerSecond)} lines/s at ${ceilingMicros.toFixed(2)} µs/line; ` +
        `p99 ${result.load.p99Ms.toFixed(0)} ms, ${result.load.errors} errors, ${result.storedRows}/${result.load.acknowledgedLines} acknowledged lines stored`,
    );
  }

  const med = (pick: (run: RemoteRun, index: number) => number) => median(remote.map(pick));
  const nodeMicrosPerLine = med((r) => r.load.cpuMicrosPerLine[0]);
  const clickhouseMicrosPerLine = med((r) => r.load.cpuMicrosPerLine[1]);
  const ceilingMicrosPerLine = median(ceiling.map((r) => r.cpuMicrosPerLine[0]));
  const ceilingLinesPerSecond = median(ceiling.map((r) => r.linesPerSecond));
  const nodeLinesPerCore = 1e6 / nodeMicrosPerLine;
  const summary = {
    date: new Date().toISOString(),
    machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
    runs,
    seconds,
    connections,
    linesPerBody: LINES_PER_BODY,
    /** Whether the organisation had an alert rule (--alert). */
    alertRule: options.alert,
    /** Where the node's configuration was: SQLite in its data directory, or PostgreSQL (--postgres). */
    configuration: options.postgres ? 'postgres' : 'sqlite',
    clickhouse: 'src/testing/chdb-http-server.ts in its own process (chDB behind a Node HTTP front)',
    linesPerSecond: Math.round(med((r) => r.load.linesPerSecond)),
    nodeCpuMicrosPerLine: round(nodeMicrosPerLine, 2),
    nodeMainThreadCpuMicrosPerLine: round(med((r) => r.load.mainThreadMicrosPerLine[0]), 2),
    clickhouseCpuMicrosPerLine: round(clickhouseMicrosPerLine, 2),
    loadGeneratorCpuMicrosPerLine: round(med((r) => r.load.loaderMicrosPerLine), 2),
    /** 1e6 / the median node µs per line. */
    nodeLinesPerSecondPerCore: Math.round(nodeLinesPerCore),
    targetLinesPerSecondPerCore: TARGET_LINES_PER_CORE,
    targetMet: nodeLinesPerCore >= TARGET_LINES_PER_CORE,
    ceilingLinesPerSecond: Math.round(ceilingLinesPerSecond),
    ceilingCpuMicrosPerLine: round(ceilingMicrosPerLine, 2),
    ceilingLinesPerSecondPerCore: Math.round(1e6 / ceilingMicrosPerLine),
    /** Node lines/s per core over the ceiling's: the ceiling's CPU per line over the node's, run by run. */
    perCoreRatioToCeiling: round(median(remote.map((r, i) => ceiling[i].cpuMicrosPerLine[0] / r.load.cpuMicrosPerLine[0])), 3),
    /** Acknowledged lines/s over the ceiling's, run by run (both share this machine with the load generator). */
    throughputRatioToCeiling: round(median(remote.map((r, i) => r.load.linesPerSecond / ceiling[i].linesPerSecond)), 3),
    machineBusy: round(med((r) => r.load.machineBusy), 2),
    p50Ms: round(med((r) => r.load.p50Ms), 1),
    p99Ms: round(med((r) => r.load.p99Ms), 1),
    errors: remote.reduce((sum, r) => sum + r.load.errors, 0),
    unstoredLines: remote.reduce((sum, r) => sum + Math.max(0, r.load.acknowledgedLines - r.storedRows), 0),
    nodeMaxRssMiB: Math.round(Math.max(...remote.map((r) => r.load.maxRssMiB[0]))),
    clickhouseMaxRssMiB: Math.round(Math.max(...remote.map((r) => r.load.maxRssMiB[1]))),
    perRun: remote.map((r, i) => ({
      linesPerSecond: Math.round(r.load.linesPerSecond),
      nodeCpuMicrosPerLine: round(r.load.cpuMicrosPerLine[0], 2),
      nodeMainThreadCpuMicrosPerLine: round(r.load.mainThreadMicrosPerLine[0], 2),
      clickhouseCpuMicrosPerLine: round(r.load.cpuMicrosPerLine[1], 2),
      loadGeneratorCpuMicrosPerLine: round(r.load.loaderMicrosPerLine, 2),
      machineBusy: round(r.load.machineBusy, 2),
      ceilingLinesPerSecond: Math.round(ceiling[i].linesPerSecond),
      ceilingCpuMicrosPerLine: round(ceiling[i].cpuMicrosPerLine[0], 2),
      p99Ms: round(r.load.p99Ms, 1),
      errors: r.load.errors,
      acknowledgedLines: r.load.acknowledgedLines,
      storedRows: r.storedRows,
    })),
    profile: undefined as ReturnType<typeof summariseProfile> | undefined,
  };

  const fmt = (n: number) => n.toLocaleString('en');
  console.log('');
  console.log(`| measure (median of ${runs} runs) | value |`);
  console.log('|---|---:|');
  console.log(`| lines/s acknowledged (node, stand-in and load generator on ${os.cpus().length} cores) | ${fmt(summary.linesPerSecond)} |`);
  console.log(`| node CPU per line (all threads) | ${summary.nodeCpuMicrosPerLine} µs |`);
  console.log(`| of which the main (JavaScript) thread | ${summary.nodeMainThreadCpuMicrosPerLine} µs |`);
  console.log(`| ClickHouse stand-in CPU per line (all threads, HTTP front included) | ${summary.clickhouseCpuMicrosPerLine} µs |`);
  console.log(`| load generator CPU per line | ${summary.loadGeneratorCpuMicrosPerLine} µs |`);
  console.log(`| **node lines/s per node core** | **${fmt(summary.nodeLinesPerSecondPerCore)}** |`);
  console.log(`| target ≥ ${fmt(TARGET_LINES_PER_CORE)} lines/s per node core | ${summary.targetMet ? 'met' : 'NOT met'} |`);
  console.log(`| parse-and-discard ceiling | ${fmt(summary.ceilingLinesPerSecond)} lines/s, ${summary.ceilingCpuMicrosPerLine} µs/line = ${fmt(summary.ceilingLinesPerSecondPerCore)} lines/s per core |`);
  console.log(`| ratio to ceiling, per core (ceiling µs ÷ node µs) | ${summary.perCoreRatioToCeiling} |`);
  console.log(`| ratio to ceiling, lines/s | ${summary.throughputRatioToCeiling} |`);
  console.log(`| acknowledgement latency p50 / p99 | ${summary.p50Ms} ms / ${summary.p99Ms} ms |`);
  console.log(`| non-200 answers; acknowledged lines not stored | ${summary.errors}; ${summary.unstoredLines} |`);
  console.log(`| RSS, highest: node / stand-in | ${summary.nodeMaxRssMiB} MiB / ${summary.clickhouseMaxRssMiB} MiB |`);

  if (options['cpu-prof']) {
    const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-bench-remote-prof-'));
    console.log(`\n  profiled run (node --cpu-prof, not counted above) ...`);
    const profiled = await remoteRun(bodies, hostnames, profileDir);
    const file = fs.readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
    if (!file) throw new Error(`no .cpuprofile written in ${profileDir}`);
    const kept = path.join(root, 'bench/results', `remote-${summary.date.replace(/[:.]/g, '-')}.cpuprofile`);
    fs.mkdirSync(path.dirname(kept), { recursive: true });
    fs.copyFileSync(path.join(profileDir, file), kept);
    fs.rmSync(profileDir, { recursive: true, force: true });
    summary.profile = summariseProfile(JSON.parse(fs.readFileSync(kept, 'utf8')), root, profiled.load.windowUs);
    console.log(
      `  profiled run: ${Math.round(profiled.load.linesPerSecond)} lines/s, node ${profiled.load.cpuMicrosPerLine[0].toFixed(2)} µs/line under the profiler; ` +
        `main thread profile (whole life of the process) in ${path.relative(root, kept)}`,
    );
    const pct = (share: number) => `${(100 * share).toFixed(1)}%`;
    const scope = summary.profile.window ? `main thread, the ${seconds} s measuring window` : 'main thread, whole life of the process';
    console.log(`\n  ${summary.profile.busyMs} ms busy, ${summary.profile.idleMs} ms idle on the main thread`);
    console.log(`\n| area (self time, ${scope}) | share |`);
    console.log('|---|---:|');
    for (const row of summary.profile.byArea.slice(0, 12)) console.log(`| ${row.name} | ${pct(row.share)} |`);
    console.log('\n| function (self time) | share |');
    console.log('|---|---:|');
    for (const row of summary.profile.bySelf.slice(0, 15)) console.log(`| ${row.name} | ${pct(row.share)} |`);
    console.log('\n| Logstead or @clickhouse/client function (total time: itself and what it calls) | share |');
    console.log('|---|---:|');
    for (const row of summary.profile.byTotal.slice(0, 15)) console.log(`| ${row.name} | ${pct(row.share)} |`);
  }

  const resultsDir = path.join(root, 'bench/results');
  fs.mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `remote-${summary.date.replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify(summary, null, 2) + '\n');
  console.log(`\nresults written to ${path.relative(root, file)}`);
}

await main();
