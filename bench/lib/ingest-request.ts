import http from 'node:http';
import { lineGenerator } from './synthetic-lines.js';

/**
 * One ingest request as the benchmarks' senders make it: the body as given, the hostname and the
 * sender's clock in the query, the ingestion key in the apikey header. Resolves with the status
 * code, or 0 when the connection failed.
 */
export function postIngest(agent: http.Agent, target: URL, key: string, body: Buffer, hostname: string): Promise<number> {
  return new Promise<number>((resolve) => {
    const request = http.request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        method: 'POST',
        path: `/logs/ingest?hostname=${hostname}&now=${Date.now()}`,
        headers: { apikey: key, 'content-type': 'application/json', 'content-length': body.length },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', () => resolve(0));
    request.end(body);
  });
}

/**
 * Pre-built request bodies of `linesPerBody` synthetic lines each (seed 7, the ingest benchmarks'
 * data), so a load generator spends its CPU on sending, not on generating.
 */
export function loadBodies(linesPerBody: number, count: number): { bodies: Buffer[]; hostnames: string[]; rawBytesPerLine: number } {
  const generator = lineGenerator(7);
  const now = Date.now();
  const bodies: Buffer[] = [];
  const hostnames: string[] = [];
  let lineBytes = 0;
  for (let b = 0; b < count; b++) {
    const lines = Array.from({ length: linesPerBody }, () => generator.next(now));
    for (const line of lines) lineBytes += JSON.stringify(line).length;
    bodies.push(Buffer.from(JSON.stringify({ lines })));
    hostnames.push(generator.host());
  }
  return { bodies, hostnames, rawBytesPerLine: lineBytes / (count * linesPerBody) };
}
