/**
 * bench/protocols: the same synthetic lines (bench/ingest's, seed 7) sent to Logstead through each
 * way in: Mezmo's POST /logs/ingest (the reference), OTLP over HTTP (protobuf), Elasticsearch bulk,
 * Loki push (protobuf + snappy) and syslog over TCP (RFC 5424, octet-counted). Each protocol gets
 * a fresh server per run, and the protocols take turns within every run, so the machine's noise
 * falls on all of them alike. Lines are counted as the server counts them stored
 * (logstead_ingest_lines_total, by protocol) over the measuring window, since plain syslog
 * acknowledges nothing; CPU is the server process's. Each run starts from the next protocol in turn. Prints lines/s, CPU per line and each
 * protocol's ratio to /logs/ingest in the same run (medians). Usage:
 *   node dist/bench/protocols/run.js [--quick] [--runs N] [--seconds S] [--connections C] [--server-dir DIR]
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import snappy from 'snappyjs';
import { ExportLogsServiceRequest } from '../../src/ingest/otlp/proto.js';
import { PushRequest } from '../../src/ingest/loki/schema.js';
import { startLogsteadServer, stopProcess } from '../lib/processes.js';
import { cpuSeconds } from '../lib/rss.js';
import { median } from '../lib/stats.js';
import { type SyntheticLine, lineGenerator } from '../lib/synthetic-lines.js';
import { freePort } from '../../src/testing/free-port.js';

const { values: options } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    runs: { type: 'string' },
    seconds: { type: 'string' },
    connections: { type: 'string', default: '8' },
    'server-dir': { type: 'string' },
  },
});
const runs = Number(options.runs ?? (options.quick ? 1 : 3));
const seconds = Number(options.seconds ?? (options.quick ? 3 : 15));
const connections = Number(options.connections);
const WARMUP_MS = options.quick ? 1000 : 3000;
const LINES_PER_BODY = 1000;
const BODIES = 60;
const root = fileURLToPath(new URL('../../../', import.meta.url));

type Protocol = 'mezmo' | 'otlp-http' | 'elasticsearch' | 'loki' | 'syslog-tcp';
const PROTOCOLS: Protocol[] = ['mezmo', 'otlp-http', 'elasticsearch', 'loki', 'syslog-tcp'];

interface Batch {
  lines: SyntheticLine[];
  host: string;
}

function batches(): Batch[] {
  const generator = lineGenerator(7);
  const now = Date.now();
  return Array.from({ length: BODIES }, () => ({ lines: Array.from({ length: LINES_PER_BODY }, () => generator.next(now)), host: generator.host() }));
}

/** An HTTP request a protocol's sender makes: path, headers and body, built once before the load. */
interface HttpRequest {
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

const SEVERITY: Record<string, number> = { DEBUG: 5, INFO: 9, WARN: 13, ERROR: 17, FATAL: 21 };

function otlpValue(value: unknown): Record<string, unknown> {
  if (typeof value === 'number') return Number.isInteger(value) ? { intValue: value } : { doubleValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  return { stringValue: String(value) };
}

/** Each batch as its protocol's sender sends it, with the ingestion key where that protocol puts it. */
function httpRequests(protocol: Exclude<Protocol, 'syslog-tcp'>, key: string, all: Batch[]): HttpRequest[] {
  const basic = `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
  return all.map(({ lines, host }): HttpRequest => {
    switch (protocol) {
      case 'mezmo':
        return { path: `/logs/ingest?hostname=${host}`, headers: { apikey: key, 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ lines })) };
      case 'otlp-http': {
        const byApp = new Map<string, SyntheticLine[]>();
        for (const line of lines) byApp.set(line.app, [...(byApp.get(line.app) ?? []), line]);
        const message = ExportLogsServiceRequest.fromObject({
          resourceLogs: [...byApp].map(([app, appLines]) => ({
            resource: { attributes: [{ key: 'service.name', value: { stringValue: app } }, { key: 'host.name', value: { stringValue: host } }] },
            scopeLogs: [
              {
                logRecords: appLines.map((line) => ({
                  timeUnixNano: String(BigInt(line.timestamp) * 1_000_000n),
                  severityNumber: SEVERITY[line.level] ?? 9,
                  severityText: line.level,
                  body: { stringValue: line.line },
                  attributes: Object.entries(line.meta ?? {}).map(([name, value]) => ({ key: name, value: otlpValue(value) })),
                })),
              },
            ],
          })),
        });
        return { path: '/v1/logs', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-protobuf' }, body: Buffer.from(ExportLogsServiceRequest.encode(message).finish()) };
      }
      case 'elasticsearch': {
        const ndjson = lines
          .map((line) => `{"create":{}}\n${JSON.stringify({ '@timestamp': new Date(line.timestamp).toISOString(), message: line.line, host: { name: host }, service: { name: line.app }, log: { level: line.level }, ...line.meta })}\n`)
          .join('');
        return { path: '/logs/_bulk', headers: { authorization: basic, 'content-type': 'application/x-ndjson' }, body: Buffer.from(ndjson) };
      }
      case 'loki': {
        const byStream = new Map<string, SyntheticLine[]>();
        for (const line of lines) {
          const labels = `{app="${line.app}", host="${host}", level="${line.level.toLowerCase()}"}`;
          byStream.set(labels, [...(byStream.get(labels) ?? []), line]);
        }
        const message = PushRequest.fromObject({
          streams: [...byStream].map(([labels, streamLines]) => ({
            labels,
            entries: streamLines.map((line) => ({ timestamp: { seconds: Math.floor(line.timestamp / 1000), nanos: (line.timestamp % 1000) * 1e6 }, line: line.line })),
          })),
        });
        return { path: '/loki/api/v1/push', headers: { authorization: basic, 'content-type': 'application/x-protobuf' }, body: Buffer.from(snappy.compress(PushRequest.encode(message).finish())) };
      }
    }
  });
}

const SYSLOG_SEVERITY: Record<string, number> = { DEBUG: 7, INFO: 6, WARN: 4, ERROR: 3, FATAL: 2 };

/** Each batch as a syslog sender's stream: RFC 5424 frames, octet-counted, the key in Mezmo's structured data. */
function syslogStreams(key: string, all: Batch[]): Buffer[] {
  return all.map(({ lines, host }) =>
    Buffer.concat(
      lines.map((line) => {
        const message = Buffer.from(`<${8 + (SYSLOG_SEVERITY[line.level] ?? 6)}>1 ${new Date(line.timestamp).toISOString()} ${host} ${line.app} - - [logdna@48950 key="${key}"] ${line.line}`);
        return Buffer.concat([Buffer.from(`${message.length} `), message]);
      }),
    ),
  );
}

/** The server's count of lines stored through `protocol`. */
async function storedLines(url: string, protocol: Protocol): Promise<number> {
  const text = await new Promise<string>((resolve, reject) => {
    http
      .get(`${url}/metrics`, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
  const match = new RegExp(`^logstead_ingest_lines_total\\{protocol="${protocol}"\\} (\\S+)`, 'm').exec(text);
  if (!match) throw new Error(`the server exposes no logstead_ingest_lines_total for ${protocol}`);
  return Number(match[1]);
}

function post(agent: http.Agent, target: URL, request: HttpRequest): Promise<number> {
  return new Promise((resolve) => {
    const outgoing = http.request(
      { agent, host: target.hostname, port: target.port, method: 'POST', path: request.path, headers: { ...request.headers, 'content-length': request.body.length } },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    outgoing.on('error', () => resolve(0));
    outgoing.end(request.body);
  });
}

/** Keeps `connections` senders busy until stop() resolves; returns the non-success answers counted. */
function sendHttp(url: string, requests: HttpRequest[]): { stop(): Promise<number> } {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  let stopped = false;
  let next = 0;
  let failures = 0;
  const worker = async () => {
    while (!stopped) {
      const status = await post(agent, target, requests[next++ % requests.length]);
      if (status < 200 || status > 299) failures++;
    }
  };
  const workers = Array.from({ length: connections }, worker);
  return {
    async stop() {
      stopped = true;
      await Promise.all(workers);
      agent.destroy();
      return failures;
    },
  };
}

/** Keeps `connections` TCP streams writing, held back only by TCP's own flow control. */
function sendSyslog(port: number, streams: Buffer[]): { stop(): Promise<number> } {
  let stopped = false;
  let next = 0;
  const worker = () =>
    new Promise<void>((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port });
      const write = () => {
        while (!stopped) if (!socket.write(streams[next++ % streams.length])) return void socket.once('drain', write);
        socket.end();
      };
      socket.once('connect', write);
      socket.on('error', () => resolve());
      socket.on('close', () => resolve());
    });
  const workers = Array.from({ length: connections }, worker);
  return {
    async stop() {
      stopped = true;
      await Promise.all(workers);
      return 0;
    },
  };
}


interface Measured {
  linesPerSecond: number;
  cpuMicrosPerLine: number;
  failures: number;
}

async function measure(protocol: Protocol, all: Batch[]): Promise<Measured> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-bench-protocols-'));
  const syslogPort = await freePort();
  const server = await startLogsteadServer({ LOGSTEAD_DATA_DIR: dataDir, LOGSTEAD_SYSLOG_TCP_PORT: String(syslogPort) }, options['server-dir']);
  try {
    const { ingestionKey } = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
    const sender = protocol === 'syslog-tcp' ? sendSyslog(syslogPort, syslogStreams(ingestionKey, all)) : sendHttp(server.url, httpRequests(protocol, ingestionKey, all));
    await new Promise((resolve) => setTimeout(resolve, WARMUP_MS));
    const linesBefore = await storedLines(server.url, protocol);
    const cpuBefore = cpuSeconds(server.child.pid);
    const begin = performance.now();
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const lines = (await storedLines(server.url, protocol)) - linesBefore;
    const cpu = cpuSeconds(server.child.pid) - cpuBefore;
    const elapsed = (performance.now() - begin) / 1000;
    const failures = await sender.stop();
    return { linesPerSecond: lines / elapsed, cpuMicrosPerLine: lines > 0 ? (cpu * 1e6) / lines : 0, failures };
  } finally {
    await stopProcess(server.child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const all = batches();
  console.log(`bench/protocols: ${runs} runs × ${seconds} s per protocol, ${connections} connections, ${LINES_PER_BODY}-line batches; ${os.cpus().length} cores, Node ${process.version}`);
  const results = new Map<Protocol, Measured[]>(PROTOCOLS.map((protocol) => [protocol, []]));
  const ratios = new Map<Protocol, number[]>(PROTOCOLS.map((protocol) => [protocol, []]));
  for (let run = 1; run <= runs; run++) {
    const thisRun = new Map<Protocol, Measured>();
    // Each run starts from another protocol: a place in the order (first after a quiet spell,
    // right after the reference's server went down) then falls on each protocol alike.
    const order = PROTOCOLS.map((_, index) => PROTOCOLS[(index + run - 1) % PROTOCOLS.length]);
    for (const protocol of order) {
      const measured = await measure(protocol, all);
      thisRun.set(protocol, measured);
      results.get(protocol)!.push(measured);
    }
    const reference = thisRun.get('mezmo')!.linesPerSecond;
    for (const protocol of PROTOCOLS) ratios.get(protocol)!.push(thisRun.get(protocol)!.linesPerSecond / reference);
    console.log(`  run ${run}: ${PROTOCOLS.map((protocol) => `${protocol} ${Math.round(thisRun.get(protocol)!.linesPerSecond)} lines/s, ${thisRun.get(protocol)!.cpuMicrosPerLine.toFixed(1)} µs`).join('; ')}`);
  }
  const summary = {
    date: new Date().toISOString(),
    machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
    runs,
    seconds,
    connections,
    protocols: PROTOCOLS.map((protocol) => ({
      protocol,
      linesPerSecond: Math.round(median(results.get(protocol)!.map((r) => r.linesPerSecond))),
      cpuMicrosPerLine: Number(median(results.get(protocol)!.map((r) => r.cpuMicrosPerLine)).toFixed(1)),
      ratioToMezmo: Number(median(ratios.get(protocol)!).toFixed(3)),
      failures: results.get(protocol)!.reduce((sum, r) => sum + r.failures, 0),
    })),
  };
  console.log('');
  console.log('| protocol (median of runs) | lines/s | server CPU per line | ratio to /logs/ingest in the same run | non-2xx answers |');
  console.log('|---|---:|---:|---:|---:|');
  for (const row of summary.protocols) {
    console.log(`| ${row.protocol} | ${row.linesPerSecond.toLocaleString('en')} | ${row.cpuMicrosPerLine} µs | ${row.ratioToMezmo} | ${row.failures} |`);
  }
  const resultsDir = path.join(root, 'bench/results');
  fs.mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `protocols-${summary.date.replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify(summary, null, 2) + '\n');
  console.log(`\nresults written to ${path.relative(root, file)}`);
}

await main();
