/**
 * bench/ingest/hostile-requests: a stream of maximal requests against `logstead serve`, with the
 * server's resident memory (RSS) sampled throughout, to check that it stays bounded (issue 14).
 * Not part of `npm run bench`. Usage:
 *   node dist/bench/ingest/hostile-requests.js [--requests N] [--concurrency C] [--only <kind prefix>]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startLogsteadServer, stopProcess } from '../lib/processes.js';

const { values: options } = parseArgs({
  options: {
    requests: { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '2' },
    only: { type: 'string' },
  },
});
const REQUESTS = Number(options.requests);
const CONCURRENCY = Number(options.concurrency);

/** Just under the 10 MB body limit. */
const BODY = 10 * 1024 * 1024 - 1024;

/** Request parameters at their limits: a 256-character hostname and 32 tags of 80 characters. */
const MAXIMAL_QUERY = `hostname=${'h'.repeat(256)}&tags=${Array.from({ length: 32 }, (_, i) => `t${i}`.padEnd(80, 'g')).join(',')}`;

/** Fills a body with `makeLine(i)` until the next would not fit. */
function linesBody(makeLine: (i: number) => string): string {
  const lines: string[] = [];
  let bytes = 20;
  for (let i = 0; ; i++) {
    const line = makeLine(i);
    if (bytes + line.length + 1 > BODY) break;
    lines.push(line);
    bytes += line.length + 1;
  }
  return `{"lines":[${lines.join(',')}]}`;
}

function hugeLabels(): string {
  const huge = 'x'.repeat(Math.floor(BODY / 9));
  return JSON.stringify({
    lines: [{ line: 'huge labels', env: huge, file: huge, app: huge, host: huge, pid: huge, containerid: huge, label: { a: huge }, annotation: { b: huge } }],
  });
}

function metaHeavy(): string {
  const meta = Object.fromEntries(Array.from({ length: 400 }, (_, k) => [`f${k}`, 'v'.repeat(60)]));
  return linesBody((i) => JSON.stringify({ line: `meta ${i}`, meta }));
}

const KINDS: Array<{ name: string; body: () => string; query: string }> = [
  { name: 'huge labels (one line, every label ~1 MB)', body: hugeLabels, query: MAXIMAL_QUERY },
  { name: 'tiny lines (each would repeat the maximal hostname and tags)', body: () => linesBody(() => '{"line":""}'), query: MAXIMAL_QUERY },
  { name: 'meta-heavy (400 lines of 25 KB meta)', body: metaHeavy, query: MAXIMAL_QUERY },
  { name: 'realistic 70-byte lines (hostname web-1, tags prod,eu)', body: () => linesBody((i) => JSON.stringify({ line: `GET /api/items/${i} 200 12ms`, app: 'web', level: 'INFO' })), query: 'hostname=web-1&tags=prod,eu' },
  { name: 'over the limit (11 MB)', body: () => 'x'.repeat(11 * 1024 * 1024), query: MAXIMAL_QUERY },
];

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-hostile-'));
const { child, url } = await startLogsteadServer({ LOGSTEAD_DATA_DIR: dataDir });
const credentials = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
const rssMiB = () => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024;
let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, rssMiB())), 100);

try {
  console.log(`idle RSS ${rssMiB().toFixed(0)} MiB; ${REQUESTS} requests of each kind, ${CONCURRENCY} at a time`);
  for (const kind of KINDS) {
    if (options.only && !kind.name.startsWith(options.only)) continue;
    const body = kind.body();
    const statuses: Record<string, number> = {};
    peak = rssMiB();
    const started = Date.now();
    let sent = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (sent++ < REQUESTS) {
          let outcome: string;
          try {
            const reply = await fetch(`${url}/logs/ingest?${kind.query}`, {
              method: 'POST',
              headers: { apikey: credentials.ingestionKey, 'content-type': 'application/json' },
              body,
            });
            await reply.arrayBuffer();
            outcome = String(reply.status);
          } catch (error) {
            outcome = String((error as { cause?: { code?: string } }).cause?.code ?? error);
          }
          statuses[outcome] = (statuses[outcome] ?? 0) + 1;
        }
      }),
    );
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(`${kind.name}: ${seconds} s, answers ${JSON.stringify(statuses)}, peak RSS ${peak.toFixed(0)} MiB, after ${rssMiB().toFixed(0)} MiB`);
  }
  const exported = await fetch(`${url}/v1/export?from=0&to=${Date.now() + 60_000}&size=10000&query=huge`, { headers: { servicekey: credentials.serviceKey } });
  console.log(`export of the huge-label lines: ${(await exported.arrayBuffer()).byteLength} bytes`);
} finally {
  clearInterval(sampler);
  await stopProcess(child);
  fs.rmSync(dataDir, { recursive: true, force: true });
}
