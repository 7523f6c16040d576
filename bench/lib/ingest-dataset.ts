import http from 'node:http';
import { lineGenerator } from './synthetic-lines.js';

const BODY_LINES = 5000;
const CONNECTIONS = 6;
const NEEDLES = 12;

/**
 * Sends `total` synthetic lines through POST /logs/ingest, spread evenly over [spanStart,
 * spanStart + spanMs), oldest first, with 12 `segfault` needles; prints progress per million.
 */
export async function ingestDataset(url: string, key: string, total: number, spanStart: number, spanMs: number): Promise<{ seconds: number; rawBytes: number }> {
  const generator = lineGenerator(11);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const target = new URL(url);
  const needleEvery = Math.floor(total / NEEDLES);
  let sent = 0;
  let rawBytes = 0;
  const begin = performance.now();
  const post = (body: string, host: string) =>
    new Promise<void>((resolve, reject) => {
      const request = http.request(
        { agent, host: target.hostname, port: target.port, method: 'POST', path: `/logs/ingest?hostname=${host}`, headers: { apikey: key, 'content-type': 'application/json' } },
        (response) => {
          response.resume();
          response.on('end', () => (response.statusCode === 200 ? resolve() : reject(new Error(`ingest answered ${response.statusCode}`))));
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  const worker = async () => {
    while (sent < total) {
      const first = sent;
      const count = Math.min(BODY_LINES, total - first);
      sent += count;
      const lines = [];
      for (let i = first; i < first + count; i++) {
        const line = generator.next(spanStart + Math.floor((i / total) * spanMs));
        if (i % needleEvery === needleEvery - 1) line.line += ' kernel: segfault at 0 ip 00007f';
        lines.push(line);
      }
      const body = JSON.stringify({ lines });
      rawBytes += body.length;
      await post(body, generator.host());
      const done = first + count;
      if (Math.floor(done / 1_000_000) !== Math.floor(first / 1_000_000)) {
        process.stdout.write(`  ${Math.floor(done / 1_000_000)}M lines sent, ${((performance.now() - begin) / 1000).toFixed(0)} s\n`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  agent.destroy();
  return { seconds: (performance.now() - begin) / 1000, rawBytes };
}
