/**
 * bench/ingest/format-cost: the CPU time normaliseLine (JSON, format detection and parsing, level,
 * time, meta) takes per line on the ingest benchmark's mix, in this process, without HTTP or the
 * store, whose noise on a shared machine hides a few percent. `--dir <checkout>` loads another
 * built checkout's normaliseLine, for a before/after comparison on the same lines.
 *
 *   node dist/bench/ingest/format-cost.js [--dir /path/to/other/checkout] [--lines 200000] [--rounds 7]
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { lineGenerator } from '../lib/synthetic-lines.js';

const { values: options } = parseArgs({
  options: { dir: { type: 'string' }, lines: { type: 'string', default: '200000' }, rounds: { type: 'string', default: '7' } },
});
const root = options.dir ? path.resolve(options.dir) : path.resolve(import.meta.dirname, '../../..');
const { normaliseLine } = await import(pathToFileURL(path.join(root, 'dist/src/ingest/normalise.js')).href);

const generator = lineGenerator(42);
const now = Date.now();
const lines = Array.from({ length: Number(options.lines) }, () => generator.next(now));
const context = { account: 'bench', batchId: 'b', source: { hostname: 'host-1', ip: '', mac: '', tags: [] as string[], nowMs: null }, receivedAt: now, driftMs: 0 };

const perLine: number[] = [];
for (let round = 0; round < Number(options.rounds); round++) {
  const start = process.cpuUsage();
  for (let index = 0; index < lines.length; index++) normaliseLine(lines[index], context, String(index));
  const used = process.cpuUsage(start);
  perLine.push(((used.user + used.system) * 1000) / lines.length); // ns per line
}
// The first round warms the JIT.
const counted = perLine.slice(1).sort((a, b) => a - b);
const median = counted[Math.floor(counted.length / 2)];
console.log(JSON.stringify({ dir: root, lines: lines.length, nsPerLineRounds: perLine.map((value) => Math.round(value)), medianNsPerLine: Math.round(median) }));
