/**
 * Where the CPU of one acknowledged line goes (issue 19): the ingest path split into its parts,
 * each measured on bench/ingest's bodies with the real code.
 *
 *   node dist/bench/cost/breakdown.js [--rows 1000000] [--runs 3] [--seconds 12]
 *
 * 1. The whole: `logstead serve` loaded as bench/ingest loads it; its process CPU (every thread,
 *    from /proc) divided by acknowledged lines.
 * 2. Reading the body: the parse-and-discard server (bench/ingest/discard-server.ts) under the same
 *    load; its CPU per line is HTTP + reading + JSON.parse. JSON.parse measured alone (3) is
 *    subtracted to leave HTTP and reading.
 * 3. The Node stages in-process (node-stages.ts): JSON.parse, normaliseLine, the meta type rule,
 *    encodeRow.
 * 4. The engine, each variant in a fresh process, on the rows stage 3 produced, in 8,000-row
 *    inserts as the group commit makes them with 8 connections:
 *      bare       no index, fsync off, merges stopped   -> the insert itself
 *      fsync      no index, fsync on,  merges stopped   -> minus bare = fsync
 *      indexed    text index, fsync on, merges stopped  -> minus fsync = building the index
 *      full       text index, fsync on, merges on       -> CPU until merges settle = merges
 *      full-noidx no index, fsync on, merges on         -> merges without the index
 *    Medians of --runs runs.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startLogsteadServer, startProcess, stopProcess } from '../lib/processes.js';
import { rssMiB } from '../lib/rss.js';
import { median } from '../lib/stats.js';
import { LINES_PER_BODY, ingestBodies, machine, machineLoad, processCpuMicros } from './common.js';
import { type EngineRun, engineRun, insertPayloads } from './engine-run.js';
import { type NodeStageMicros, nodePipeline } from './node-stages.js';
import type { TableDesign } from './table.js';

const { values: options } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '12' },
    connections: { type: 'string', default: '8' },
    engine: { type: 'string' },
    'skip-http': { type: 'boolean', default: false },
    'skip-engine': { type: 'boolean', default: false },
  },
});
const ROWS = Number(options.rows);
const RUNS = Number(options.runs);
const INSERT_BODIES = 8;
const root = fileURLToPath(new URL('../../../', import.meta.url));
const discardServer = fileURLToPath(new URL('../ingest/discard-server.js', import.meta.url));

const ENGINE_VARIANTS: Record<string, { design: TableDesign; stopMerges: boolean }> = {
  bare: { design: { index: { kind: 'none' }, fsync: false }, stopMerges: true },
  fsync: { design: { index: { kind: 'none' } }, stopMerges: true },
  indexed: { design: { index: { kind: 'text' } }, stopMerges: true },
  full: { design: { index: { kind: 'text' } }, stopMerges: false },
  'full-noidx': { design: { index: { kind: 'none' } }, stopMerges: false },
};

/** One engine variant, in this (fresh) process: prints its EngineRun as JSON. */
async function engineChild(name: string): Promise<void> {
  const variant = ENGINE_VARIANTS[name];
  const { payloads, counts } = await insertPayloads(ROWS, INSERT_BODIES);
  const result = await engineRun(variant.design, payloads, counts, { stopMerges: variant.stopMerges });
  console.log(JSON.stringify(result));
}

/** Loads a server with bench/ingest's bodies for `seconds`, counting acknowledged lines and the server's CPU. */
async function loadServer(url: string, key: string, pid: number, bodies: Buffer[], hostnames: string[], seconds: number) {
  const target = new URL(url);
  const connections = Number(options.connections);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  let measuring = false;
  let stopped = false;
  let lines = 0;
  let next = 0;
  const send = (body: Buffer, hostname: string) =>
    new Promise<number>((resolve) => {
      const request = http.request(
        { agent, host: target.hostname, port: target.port, method: 'POST', path: `/logs/ingest?hostname=${hostname}&now=${Date.now()}`,
          headers: { apikey: key, 'content-type': 'application/json', 'content-length': body.length } },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        },
      );
      request.on('error', () => resolve(0));
      request.end(body);
    });
  const worker = async () => {
    while (!stopped) {
      const index = next++ % bodies.length;
      const status = await send(bodies[index], hostnames[index]);
      if (measuring && !stopped && status === 200) lines += LINES_PER_BODY;
    }
  };
  const workers = Array.from({ length: connections }, worker);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  measuring = true;
  const cpu0 = processCpuMicros(pid);
  const t0 = performance.now();
  let maxRssMiB = 0;
  const sampler = setInterval(() => (maxRssMiB = Math.max(maxRssMiB, rssMiB(pid))), 250);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  clearInterval(sampler);
  const cpu1 = processCpuMicros(pid);
  const elapsed = (performance.now() - t0) / 1000;
  const counted = lines;
  stopped = true;
  await Promise.all(workers);
  agent.destroy();
  return { linesPerSecond: counted / elapsed, cpuMicrosPerLine: (cpu1 - cpu0) / counted, serverCores: (cpu1 - cpu0) / 1e6 / elapsed, maxRssMiB: Math.round(maxRssMiB) };
}

const fmt = (value: number) => value.toFixed(1);

async function main() {
  if (options.engine) return engineChild(options.engine);
  const script = fileURLToPath(import.meta.url);
  const loads: string[] = [machineLoad()];
  console.log(`bench/cost breakdown: ${machine()}; ${RUNS} runs; engine runs of ${ROWS.toLocaleString('en')} rows in ${INSERT_BODIES * LINES_PER_BODY}-row inserts; ${machineLoad()}`);

  // 1 and 2: the whole server, and the parse-and-discard ceiling.
  const { bodies, hostnames, rawBytes } = ingestBodies(60);
  const server: Array<{ linesPerSecond: number; cpuMicrosPerLine: number; serverCores: number; maxRssMiB: number }> = [];
  const discard: typeof server = [];
  if (!options['skip-http']) {
    for (let run = 0; run < RUNS; run++) {
      const ceiling = await startProcess(discardServer, [], {});
      discard.push(await loadServer(ceiling.url, 'none', ceiling.child.pid!, bodies, hostnames, Number(options.seconds)));
      await stopProcess(ceiling.child);
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-cost-server-'));
      const started = await startLogsteadServer({ LOGSTEAD_DATA_DIR: dataDir });
      const { ingestionKey } = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
      server.push(await loadServer(started.url, ingestionKey, started.child.pid!, bodies, hostnames, Number(options.seconds)));
      await stopProcess(started.child);
      fs.rmSync(dataDir, { recursive: true, force: true });
      console.log(`  run ${run + 1}: server ${Math.round(server[run].linesPerSecond)} lines/s at ${fmt(server[run].cpuMicrosPerLine)} µs/line ` +
        `(${server[run].serverCores.toFixed(2)} cores, RSS up to ${server[run].maxRssMiB} MiB); discard ${Math.round(discard[run].linesPerSecond)} lines/s at ${fmt(discard[run].cpuMicrosPerLine)} µs/line; ${machineLoad()}`);
      loads.push(machineLoad());
    }
  }

  // 3: the Node stages, in this process, after one warm-up pass.
  const pipeline = await nodePipeline();
  await pipeline.run(bodies, hostnames);
  const stages: NodeStageMicros[] = [];
  for (let run = 0; run < Math.max(RUNS, 5); run++) stages.push(await pipeline.run(bodies, hostnames));
  await pipeline.close();
  const perLine = (key: 'parse' | 'normalise' | 'metaTypes' | 'encode') => median(stages.map((s) => s[key] / s.lines));
  const node = { parse: perLine('parse'), normalise: perLine('normalise'), metaTypes: perLine('metaTypes'), encode: perLine('encode') };
  console.log(`  node stages: parse ${fmt(node.parse)}, normalise ${fmt(node.normalise)}, meta types ${fmt(node.metaTypes)}, encode ${fmt(node.encode)} µs/line`);

  // 4: the engine variants, each run in a fresh process, interleaved so the machine's load spreads over all.
  const engine: Record<string, EngineRun[]> = Object.fromEntries(Object.keys(ENGINE_VARIANTS).map((name) => [name, []]));
  for (let run = 0; run < (options['skip-engine'] ? 0 : RUNS); run++) {
    for (const name of Object.keys(ENGINE_VARIANTS)) {
      const child = spawnSync(process.execPath, [script, '--engine', name, '--rows', String(ROWS)], { encoding: 'utf8', maxBuffer: 1 << 24 });
      if (child.status !== 0) throw new Error(`${name}: ${child.stderr}`);
      const result: EngineRun = JSON.parse(child.stdout.trim().split('\n').pop()!);
      engine[name].push(result);
      console.log(`  engine ${name} run ${run + 1}: insert ${fmt(result.insertMicrosPerRow)} µs/row, settle ${fmt(result.settleMicrosPerRow)} µs/row ` +
        `(${result.settleSeconds.toFixed(0)} s), ${Math.round(result.rows / result.insertSeconds)} rows/s, parts ${result.partsAfterInserts} → ${result.partsSettled}; ${machineLoad()}`);
      loads.push(machineLoad());
    }
  }
  const m = (name: string, key: 'insertMicrosPerRow' | 'settleMicrosPerRow') => median(engine[name].map((r) => r[key]));
  const bare = m('bare', 'insertMicrosPerRow');
  const fsyncCost = m('fsync', 'insertMicrosPerRow') - bare;
  const indexBuild = m('indexed', 'insertMicrosPerRow') - m('fsync', 'insertMicrosPerRow');
  const merges = m('full', 'settleMicrosPerRow') + (m('full', 'insertMicrosPerRow') - m('indexed', 'insertMicrosPerRow'));
  const mergesNoIndex = m('full-noidx', 'settleMicrosPerRow') + (m('full-noidx', 'insertMicrosPerRow') - m('fsync', 'insertMicrosPerRow'));
  const httpRead = discard.length ? median(discard.map((d) => d.cpuMicrosPerLine)) - node.parse : Number.NaN;
  const total = server.length ? median(server.map((s) => s.cpuMicrosPerLine)) : Number.NaN;

  const parts: Array<[string, number]> = [
    ['HTTP and reading the body (discard server minus JSON.parse)', httpRead],
    ['JSON.parse of the body', node.parse],
    ['normalising (normaliseLine)', node.normalise],
    ['meta types (MetaTypeRegistry.admit)', node.metaTypes],
    ['encoding the rows (encodeRow, TSV)', node.encode],
    ['the insert (engine parses TSV, sorts, compresses, writes the part)', bare],
    ['fsync (fsync_after_insert, fsync_part_directory)', fsyncCost],
    ['building the text index at insert', indexBuild],
    ['merges, without the index', mergesNoIndex],
    ['merges, the index\'s share (rebuilding posting lists)', merges - mergesNoIndex],
  ];
  const sum = parts.reduce((acc, [, value]) => acc + (Number.isFinite(value) ? value : 0), 0);
  console.log(`\n| part of one acknowledged line | CPU µs |\n|---|---:|`);
  for (const [label, value] of parts) console.log(`| ${label} | ${fmt(value)} |`);
  console.log(`| **sum of the parts** | **${fmt(sum)}** |`);
  console.log(`| the whole server, measured (logstead serve, ${options.connections} connections) | ${fmt(total)} |`);
  console.log(`| rest: fastify, batching, GC and event-loop overhead not in any stage above | ${fmt(total - sum)} |`);
  if (server.length) {
    console.log(`\nserver: ${Math.round(median(server.map((s) => s.linesPerSecond))).toLocaleString('en')} lines/s, ` +
      `${median(server.map((s) => s.serverCores)).toFixed(2)} cores busy; parse-only ceiling ${Math.round(median(discard.map((d) => d.linesPerSecond))).toLocaleString('en')} lines/s`);
  }

  const date = new Date().toISOString();
  const summary = {
    date, machine: machine(), loads, rows: ROWS, runs: RUNS, rawBytesPerLine: rawBytes / (bodies.length * LINES_PER_BODY),
    microsPerLine: Object.fromEntries(parts.map(([label, value]) => [label, Number(value.toFixed(2))])),
    sumMicros: Number(sum.toFixed(2)), serverMicros: Number(total.toFixed(2)),
    server, discard, node: stages, engine,
  };
  const file = path.join(root, 'bench/results', `cost-${date.replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify(summary, null, 2) + '\n');
  console.log(`results written to ${path.relative(root, file)}`);
}

await main();
