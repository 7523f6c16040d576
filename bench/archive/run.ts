/**
 * bench/archive: what an hour's archive costs against what ingesting that hour cost (issue 29:
 * under 5%). Each run ingests bench/ingest's lines (the same generator, seed 7), spread over the
 * previous hour, into a fresh `logstead serve` with archiving configured to an S3 server on
 * loopback (s3rver, as the archive tests use), and takes the server process's CPU from the first
 * request to the last acknowledgement: the ceiling. Then, with the server stopped, one archiver
 * round on its data directory (archive-once.ts, a process of its own) plans and writes the hour's
 * gzip JSON Lines objects, and its process CPU is the archive's cost, the embedded engine's reading
 * included. Prints CPU per line for both and their ratio (target < 0.05), medians of the runs.
 * Usage:
 *   node dist/bench/archive/run.js [--quick] [--runs N] [--lines N] [--connections C] [--server-dir DIR] [--archiver-dir DIR]
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startTestS3, S3RVER_KEY, S3RVER_SECRET } from '../../src/testing/s3-server.js';
import { postIngest } from '../lib/ingest-request.js';
import { startLogsteadServer, stopProcess } from '../lib/processes.js';
import { cpuSeconds } from '../lib/rss.js';
import { median } from '../lib/stats.js';
import { lineGenerator } from '../lib/synthetic-lines.js';

const { values: options } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    runs: { type: 'string' },
    lines: { type: 'string' },
    connections: { type: 'string', default: '8' },
    /** Another built checkout's server, for a before/after comparison on the same load. */
    'server-dir': { type: 'string' },
    /** Another built checkout's archiver (archive-once.ts loads its modules). */
    'archiver-dir': { type: 'string' },
    /** Leaves each run's data directory in place (its path is printed), to look into afterwards. */
    'keep-data': { type: 'boolean', default: false },
  },
});
const runs = Number(options.runs ?? (options.quick ? 1 : 3));
const totalLines = Number(options.lines ?? (options.quick ? 100_000 : 500_000));
const connections = Number(options.connections);
const LINES_PER_BODY = 1000;
const HOUR_MS = 3_600_000;
const root = fileURLToPath(new URL('../../../', import.meta.url));
const archiveOnce = fileURLToPath(new URL('./archive-once.js', import.meta.url));

interface RunResult {
  ingestCpuMicrosPerLine: number;
  archiveCpuMicrosPerLine: number;
  ratio: number;
  ingestLinesPerSecond: number;
  archiveSeconds: number;
  archivedLines: number;
  gzipBytesPerLine: number;
}

/** bench/ingest's lines, with their times spread over one closed hour, in 1,000-line bodies. */
function hourOfBodies(hour: number): { bodies: Buffer[]; hostnames: string[]; rawBytes: number } {
  const generator = lineGenerator(7);
  const bodies: Buffer[] = [];
  const hostnames: string[] = [];
  let rawBytes = 0;
  for (let at = 0; at < totalLines; at += LINES_PER_BODY) {
    const lines = Array.from({ length: Math.min(LINES_PER_BODY, totalLines - at) }, (_, index) => generator.next(hour + Math.floor(((at + index) / totalLines) * HOUR_MS)));
    const body = Buffer.from(JSON.stringify({ lines }));
    rawBytes += body.length;
    bodies.push(body);
    hostnames.push(generator.host());
  }
  return { bodies, hostnames, rawBytes };
}

async function send(url: string, key: string, bodies: Buffer[], hostnames: string[]): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const target = new URL(url);
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const index = next++;
      const status = await postIngest(agent, target, key, bodies[index], hostnames[index]);
      if (status !== 200) throw new Error(`ingest answered ${status}`);
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  agent.destroy();
}

function runArchiver(dataDir: string): Promise<{ lines: number; bytes: number; failures: number; cpuSeconds: number; seconds: number }> {
  const args = [archiveOnce, '--data-dir', dataDir, ...(options['archiver-dir'] ? ['--build', options['archiver-dir']] : [])];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    // The S3 client's notice about Node versions is noise here; the output is shown when it fails.
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => {
      const last = output.trim().split('\n').filter((line) => line.startsWith('{')).pop() ?? '';
      if (code !== 0) return reject(new Error(`archive-once failed (exit ${code}): ${output}`));
      resolve(JSON.parse(last));
    });
  });
}

async function oneRun(s3: Awaited<ReturnType<typeof startTestS3>>, bodies: Buffer[], hostnames: string[]): Promise<RunResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-bench-archive-'));
  try {
    // The server's own archiver stays idle (its next look is a day away): archive-once.ts archives.
    const server = await startLogsteadServer({ LOGSTEAD_DATA_DIR: dataDir, LOGSTEAD_ARCHIVE_INTERVAL_SECONDS: '86400', LOGSTEAD_ARCHIVE_DELAY_MINUTES: '0' }, options['server-dir']);
    const { ingestionKey, serviceKey } = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
    const configured = await fetch(`${server.url}/v1/config/archiving`, {
      method: 'POST',
      headers: { servicekey: serviceKey, 'content-type': 'application/json' },
      body: JSON.stringify({ integration: 's3', bucket: s3.bucket, endpoint: s3.endpoint, accesskey: S3RVER_KEY, secretkey: S3RVER_SECRET, forcepathstyle: true }),
    });
    if (configured.status !== 200) throw new Error(`configuring archiving answered ${configured.status}: ${await configured.text()}`);
    await new Promise((resolve) => setTimeout(resolve, 50)); // every line arrives after the configuration
    const cpuBefore = cpuSeconds(server.child.pid);
    const began = performance.now();
    await send(server.url, ingestionKey, bodies, hostnames);
    const ingestSeconds = (performance.now() - began) / 1000;
    const ingestCpu = cpuSeconds(server.child.pid) - cpuBefore;
    await stopProcess(server.child);
    const archived = await runArchiver(dataDir);
    if (archived.lines !== totalLines || archived.failures > 0) throw new Error(`archived ${archived.lines} of ${totalLines} lines, ${archived.failures} failures`);
    const ingestCpuMicrosPerLine = (ingestCpu * 1e6) / totalLines;
    const archiveCpuMicrosPerLine = (archived.cpuSeconds * 1e6) / totalLines;
    return {
      ingestCpuMicrosPerLine,
      archiveCpuMicrosPerLine,
      ratio: archiveCpuMicrosPerLine / ingestCpuMicrosPerLine,
      ingestLinesPerSecond: totalLines / ingestSeconds,
      archiveSeconds: archived.seconds,
      archivedLines: archived.lines,
      gzipBytesPerLine: archived.bytes / archived.lines,
    };
  } finally {
    if (options['keep-data']) console.log(`  data directory kept: ${dataDir}`);
    else fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const hour = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - HOUR_MS;
  const { bodies, hostnames, rawBytes } = hourOfBodies(hour);
  console.log(
    `bench/archive: ${runs} runs, ${totalLines.toLocaleString('en')} lines of one hour (bench/ingest's, ${(rawBytes / totalLines).toFixed(0)} raw JSON bytes a line), ` +
      `${connections} connections; ${os.cpus().length} cores, Node ${process.version}`,
  );
  const s3 = await startTestS3('archive-bench');
  const results: RunResult[] = [];
  try {
    for (let run = 1; run <= runs; run++) {
      const result = await oneRun(s3, bodies, hostnames);
      results.push(result);
      console.log(
        `  run ${run}: ingest ${result.ingestCpuMicrosPerLine.toFixed(2)} µs CPU a line (${Math.round(result.ingestLinesPerSecond)} lines/s), ` +
          `archive ${result.archiveCpuMicrosPerLine.toFixed(2)} µs a line (${result.archiveSeconds.toFixed(1)} s, ${result.gzipBytesPerLine.toFixed(0)} gzip bytes a line), ratio ${result.ratio.toFixed(3)}`,
      );
    }
  } finally {
    await s3.close();
  }
  const summary = {
    date: new Date().toISOString(),
    machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
    runs,
    lines: totalLines,
    connections,
    ingestCpuMicrosPerLine: Number(median(results.map((r) => r.ingestCpuMicrosPerLine)).toFixed(2)),
    archiveCpuMicrosPerLine: Number(median(results.map((r) => r.archiveCpuMicrosPerLine)).toFixed(2)),
    /** The median of the runs' own ratios (each against the ingest of the same run). */
    ratio: Number(median(results.map((r) => r.ratio)).toFixed(3)),
    target: 0.05,
    gzipBytesPerLine: Number(median(results.map((r) => r.gzipBytesPerLine)).toFixed(1)),
    results,
  };
  console.log('');
  console.log('| measure (median of runs) | value |');
  console.log('|---|---:|');
  console.log(`| ingest: server CPU per line, first request to last acknowledgement (the ceiling) | ${summary.ingestCpuMicrosPerLine} µs |`);
  console.log(`| archive: archiver process CPU per line, reading the store included | ${summary.archiveCpuMicrosPerLine} µs |`);
  console.log(`| archive / ingest | ${summary.ratio} (target < ${summary.target}) |`);
  console.log(`| archive object size per line (gzip) | ${summary.gzipBytesPerLine} bytes |`);
  const resultsDir = path.join(root, 'bench/results');
  fs.mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `archive-${summary.date.replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify(summary, null, 2) + '\n');
  console.log(`\nresults written to ${path.relative(root, file)}`);
}

await main();
