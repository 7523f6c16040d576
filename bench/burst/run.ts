/**
 * bench/burst: a burst shaped like Fluent Bit flushing a backlog, offered at twice the rate
 * Logstead sustains, against a fresh server. Each ~2.5 MB chunk is sent on schedule (open loop,
 * one connection per chunk in flight) and, as Fluent Bit with `Retry_Limit 1` does, tried once
 * more after a few seconds if refused and dropped if refused again. Prints lines/s acknowledged,
 * 503s, chunks dropped, connection errors, acknowledgement latency and the server's RSS, each the
 * median of the runs, and checks that exactly the acknowledged lines were stored. Usage:
 *   node dist/bench/burst/run.js [--quick] [--runs N] [--lines N] [--chunk-lines N]
 *     [--sustainable LINES_PER_S] [--server-dir PATH] [--wait-ms MS]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { seededRandom } from '../../src/testing/seeded-random.js';
import { lineGenerator } from '../lib/synthetic-lines.js';
import { startLogsteadServer, stopProcess } from '../lib/processes.js';
import { rssMiB } from '../lib/rss.js';
import { median, percentile } from '../lib/stats.js';
import { type Chunk, type Delivery, fluentBitSender } from './fluent-bit-sender.js';

const { values: options } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    runs: { type: 'string' },
    lines: { type: 'string' },
    'chunk-lines': { type: 'string', default: '12500' },
    // bench/ingest's sustained figure on the reference machine (bench/results/ingest-*.json).
    sustainable: { type: 'string', default: '70000' },
    'retry-min-ms': { type: 'string', default: '1000' },
    'retry-max-ms': { type: 'string', default: '5000' },
    'server-dir': { type: 'string' },
    // The server's LOGSTEAD_INGEST_WAIT_MS, to see the shedding path (a server before it ignores it).
    'wait-ms': { type: 'string' },
  },
});
const runs = Number(options.runs ?? (options.quick ? 1 : 2));
const chunkLines = Number(options['chunk-lines']);
const totalLines = Number(options.lines ?? (options.quick ? 200_000 : 1_000_000));
const chunkCount = Math.ceil(totalLines / chunkLines);
const sustainable = Number(options.sustainable);
const offeredLinesPerSecond = 2 * sustainable;
const retryMinMs = Number(options['retry-min-ms']);
const retryMaxMs = Number(options['retry-max-ms']);
const serverDir = options['server-dir'] ? path.resolve(options['server-dir']) : undefined;
const serverEnv: Record<string, string> = options['wait-ms'] ? { LOGSTEAD_INGEST_WAIT_MS: options['wait-ms'] } : {};
/** The facets API lists at most this many hosts, and each chunk is counted by its own host. */
const MAX_CHUNKS = 500;
const RSS_SAMPLE_MS = 250;

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** Pre-built bodies, reused by every run (the host name travels in the query), so sending costs no CPU for generating. */
function buildChunks(): { bodies: Buffer[]; bytesPerLine: number } {
  const generator = lineGenerator(11);
  const now = Date.now();
  const bodies: Buffer[] = [];
  let bytes = 0;
  for (let c = 0; c < chunkCount; c++) {
    const lines = Array.from({ length: Math.min(chunkLines, totalLines - c * chunkLines) }, () => generator.next(now));
    bodies.push(Buffer.from(JSON.stringify({ lines })));
    bytes += bodies[c].length;
  }
  return { bodies, bytesPerLine: bytes / totalLines };
}

interface RunResult {
  acknowledgedLines: number;
  linesPerSecond: number;
  wallSeconds: number;
  /** Seconds the schedule took to start every chunk's first attempt: the offered burst's length. */
  offeredSeconds: number;
  answers503: number;
  answers503WithRetryAfter: number;
  answers503Readable: number;
  otherRefusals: number;
  connectionErrors: Record<string, number>;
  retriedChunks: number;
  droppedChunks: number;
  droppedLines: number;
  ackP50Ms: number;
  ackP99Ms: number;
  maxRssMiB: number;
  medianRssMiB: number;
  storedLines: number;
  /** Chunks whose stored line count differs from what was acknowledged (0 or all of it). */
  mismatchedChunks: number;
}

async function countStoredPerHost(url: string, serviceKey: string, fromMs: number): Promise<Map<string, number>> {
  const query = new URLSearchParams({ from: String(fromMs), to: String(Date.now() + 86_400_000), limit: String(MAX_CHUNKS) });
  const response = await fetch(`${url}/v1/viewer/facets?${query}`, { headers: { servicekey: serviceKey } });
  if (!response.ok) throw new Error(`facets answered ${response.status}: ${await response.text()}`);
  const facets = (await response.json()) as { host: Array<{ value: string; count: number }> };
  return new Map(facets.host.map((entry) => [entry.value, entry.count]));
}

async function burst(bodies: Buffer[], run: number): Promise<RunResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-burst-'));
  const server = await startLogsteadServer({ LOGSTEAD_DATA_DIR: dataDir, ...serverEnv }, serverDir);
  const credentials = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
  const random = seededRandom(run);
  const sender = fluentBitSender(server.url, credentials.ingestionKey, () => retryMinMs + random() * (retryMaxMs - retryMinMs));
  const chunks: Chunk[] = bodies.map((body, index) => ({
    hostname: `burst-${String(index).padStart(4, '0')}`,
    body,
    lines: Math.min(chunkLines, totalLines - index * chunkLines),
  }));

  const rss: number[] = [];
  const sampler = setInterval(() => rss.push(rssMiB(server.child.pid)), RSS_SAMPLE_MS);
  const begin = performance.now();
  let lastAck = begin;
  let offeredSeconds = 0;
  const deliveries: Array<Promise<Delivery>> = [];
  for (let index = 0; index < chunks.length; index++) {
    const due = begin + ((index * chunkLines) / offeredLinesPerSecond) * 1000;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    deliveries.push(
      sender.deliver(chunks[index]).then((delivery) => {
        if (delivery.acknowledged) lastAck = Math.max(lastAck, performance.now());
        return delivery;
      }),
    );
  }
  offeredSeconds = (performance.now() - begin) / 1000;
  const done = await Promise.all(deliveries);
  clearInterval(sampler);
  sender.close();

  const stored = await countStoredPerHost(server.url, credentials.serviceKey, Date.now() - 86_400_000 * 2);
  await stopProcess(server.child);
  fs.rmSync(dataDir, { recursive: true, force: true });

  const attempts = done.flatMap((delivery) => delivery.attempts);
  const answers503 = attempts.filter((attempt) => attempt.status === 503);
  const connectionErrors: Record<string, number> = {};
  for (const attempt of attempts) if (attempt.error) connectionErrors[attempt.error] = (connectionErrors[attempt.error] ?? 0) + 1;
  const acknowledged = done.filter((delivery) => delivery.acknowledged);
  const acknowledgedLines = acknowledged.reduce((sum, delivery) => sum + delivery.chunk.lines, 0);
  const dropped = done.filter((delivery) => !delivery.acknowledged);
  const ackMs = acknowledged.map((delivery) => delivery.ackMs!).sort((a, b) => a - b);
  const wallSeconds = (lastAck - begin) / 1000;
  const sortedRss = [...rss].sort((a, b) => a - b);
  return {
    acknowledgedLines,
    linesPerSecond: acknowledgedLines / wallSeconds,
    wallSeconds,
    offeredSeconds,
    answers503: answers503.length,
    answers503WithRetryAfter: answers503.filter((attempt) => attempt.retryAfter !== undefined).length,
    answers503Readable: answers503.filter((attempt) => attempt.readableBody).length,
    otherRefusals: attempts.filter((attempt) => attempt.status !== 0 && attempt.status !== 503 && (attempt.status < 200 || attempt.status >= 300)).length,
    connectionErrors,
    retriedChunks: done.filter((delivery) => delivery.attempts.length > 1).length,
    droppedChunks: dropped.length,
    droppedLines: dropped.reduce((sum, delivery) => sum + delivery.chunk.lines, 0),
    ackP50Ms: percentile(ackMs, 50),
    ackP99Ms: percentile(ackMs, 99),
    maxRssMiB: sortedRss[sortedRss.length - 1] ?? 0,
    medianRssMiB: percentile(sortedRss, 50),
    storedLines: [...stored.values()].reduce((sum, count) => sum + count, 0),
    mismatchedChunks: done.filter((delivery) => (stored.get(delivery.chunk.hostname) ?? 0) !== (delivery.acknowledged ? delivery.chunk.lines : 0)).length,
  };
}

function describeServer(): { dir: string; commit: string } {
  const dir = serverDir ?? root;
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    // not a git checkout: the figures stand without a commit
  }
  return { dir, commit };
}

async function main() {
  if (chunkCount > MAX_CHUNKS) throw new Error(`${chunkCount} chunks: at most ${MAX_CHUNKS} can be counted; send larger chunks or fewer lines`);
  const server = describeServer();
  const { bodies, bytesPerLine } = buildChunks();
  const chunkMiB = (bodies[0].length / 2 ** 20).toFixed(1);
  console.log(
    `bench/burst: ${runs} run(s) of ${totalLines.toLocaleString('en')} lines in ${chunkCount} chunks of ${chunkLines.toLocaleString('en')} lines ` +
      `(${chunkMiB} MiB, ${bytesPerLine.toFixed(0)} bytes per line), offered at ${offeredLinesPerSecond.toLocaleString('en')} lines/s ` +
      `(twice ${sustainable.toLocaleString('en')}); retry once after ${retryMinMs / 1000}-${retryMaxMs / 1000} s, then drop; ` +
      `server ${server.commit} (${path.relative(process.cwd(), server.dir) || '.'})${options['wait-ms'] ? `, LOGSTEAD_INGEST_WAIT_MS=${options['wait-ms']}` : ''}; ${os.cpus().length} cores, Node ${process.version}`,
  );
  const results: RunResult[] = [];
  for (let run = 1; run <= runs; run++) {
    const result = await burst(bodies, run);
    results.push(result);
    const errors = Object.entries(result.connectionErrors).map(([code, count]) => `${count} ${code}`).join(', ') || 'none';
    console.log(
      `  run ${run}: ${Math.round(result.linesPerSecond).toLocaleString('en')} lines/s acknowledged over ${result.wallSeconds.toFixed(1)} s; ` +
        `503s ${result.answers503} (${result.answers503WithRetryAfter} with Retry-After, ${result.answers503Readable} readable); ` +
        `connection errors ${errors}; dropped ${result.droppedChunks} chunks (${result.droppedLines.toLocaleString('en')} lines); ` +
        `ack p50 ${(result.ackP50Ms / 1000).toFixed(2)} s, p99 ${(result.ackP99Ms / 1000).toFixed(2)} s; ` +
        `RSS peak ${Math.round(result.maxRssMiB)} MiB, median ${Math.round(result.medianRssMiB)} MiB; ` +
        `stored ${result.storedLines.toLocaleString('en')} of ${result.acknowledgedLines.toLocaleString('en')} acknowledged, ${result.mismatchedChunks} chunks differ`,
    );
  }
  const med = (pick: (result: RunResult) => number) => median(results.map(pick));
  const connectionErrors = (result: RunResult) => Object.values(result.connectionErrors).reduce((sum, count) => sum + count, 0);
  const summary = {
    date: new Date().toISOString(),
    machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
    server,
    serverEnv,
    runs,
    totalLines,
    chunkLines,
    chunkBytes: bodies[0].length,
    sustainableLinesPerSecond: sustainable,
    offeredLinesPerSecond,
    retryDelayMs: [retryMinMs, retryMaxMs],
    linesPerSecond: Math.round(med((r) => r.linesPerSecond)),
    answers503: med((r) => r.answers503),
    droppedChunks: med((r) => r.droppedChunks),
    droppedLines: med((r) => r.droppedLines),
    connectionErrors: med(connectionErrors),
    ackP50Ms: Math.round(med((r) => r.ackP50Ms)),
    ackP99Ms: Math.round(med((r) => r.ackP99Ms)),
    maxRssMiB: Math.round(med((r) => r.maxRssMiB)),
    medianRssMiB: Math.round(med((r) => r.medianRssMiB)),
    storedAsAcknowledged: results.every((r) => r.mismatchedChunks === 0 && r.storedLines === r.acknowledgedLines),
    results,
  };
  console.log('');
  console.log(`| measure (median of ${runs} run${runs > 1 ? 's' : ''}) | value |`);
  console.log('|---|---:|');
  console.log(`| lines/s acknowledged (first send → last ack) | ${summary.linesPerSecond.toLocaleString('en')} |`);
  console.log(`| 503 answers | ${summary.answers503} |`);
  console.log(`| chunks dropped (refused twice) | ${summary.droppedChunks} (${summary.droppedLines.toLocaleString('en')} lines) |`);
  console.log(`| connection errors (resets and the like) | ${summary.connectionErrors} |`);
  console.log(`| acknowledgement latency p50 / p99 (retry included) | ${(summary.ackP50Ms / 1000).toFixed(2)} s / ${(summary.ackP99Ms / 1000).toFixed(2)} s |`);
  console.log(`| server RSS peak / median | ${summary.maxRssMiB} MiB / ${summary.medianRssMiB} MiB |`);
  console.log(`| exactly the acknowledged lines stored (every run) | ${summary.storedAsAcknowledged ? 'yes' : 'NO'} |`);
  const resultsDir = path.join(root, 'bench/results');
  fs.mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `burst-${summary.date.replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify(summary, null, 2) + '\n');
  console.log(`\nresults written to ${path.relative(root, file)}`);
  if (!summary.storedAsAcknowledged) process.exitCode = 1;
}

await main();
