/**
 * `npm run bench`: the whole suite (ingest, search, viewer, burst, remote, protocols, archive), then one table of every target beside
 * its measured figure. `npm run bench -- --quick` is the short version, also run by CI as a smoke
 * test with no thresholds. Results of each run are kept in bench/results/.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const quick = process.argv.includes('--quick');
const root = fileURLToPath(new URL('../../', import.meta.url));

/** Runs one benchmark, echoing its output, and returns its JSON results. */
function run(name: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'dist/bench', name, 'run.js'), ...(quick ? ['--quick'] : [])], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      process.stdout.write(chunk);
    });
    child.on('exit', (code) => {
      const file = /results written to (\S+?\.json)/.exec(output)?.[1];
      if (code !== 0 || !file) return reject(new Error(`bench/${name} failed (exit ${code})`));
      resolve(JSON.parse(fs.readFileSync(path.join(root, file), 'utf8')));
    });
  });
}

const fmt = (n: number | undefined, unit: string, digits = 0) => (n === undefined || !Number.isFinite(n) ? 'n/a' : `${n.toLocaleString('en', { maximumFractionDigits: digits })} ${unit}`.trim());

async function main() {
  console.log(`npm run bench${quick ? ' -- --quick' : ''}: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}\n`);
  const ingest = await run('ingest');
  console.log('');
  const search = await run('search');
  console.log('');
  const viewer = await run('viewer');
  console.log('');
  const burst = await run('burst');
  console.log('');
  const remote = await run('remote');
  console.log('');
  const protocols = await run('protocols');
  console.log('');
  const archive = await run('archive');
  const protocol = (name: string) => protocols.protocols.find((row: { protocol: string }) => row.protocol === name);
  const query = (name: string) => search.results.find((result: { name: string }) => result.name.startsWith(name));
  const rows: Array<[string, string, string]> = [
    ['sustained ingest, 1,000-line bodies', '≥ 150,000 lines/s and ≥ 0.2 of parse-and-discard', `${fmt(ingest.logsteadLinesPerSecond, 'lines/s')}, ${ingest.ratio} of ${fmt(ingest.ceilingLinesPerSecond, 'lines/s')} (median of ${ingest.runs})`],
    ['acknowledgement latency under that load', 'p99 ≤ 500 ms', fmt(ingest.p99Ms, 'ms', 1)],
    ['memory (RSS) during sustained ingest', '≤ 1.5 GiB, flat', ingest.memory ? `${fmt(ingest.maxRssMiB, 'MiB')} at most; ${fmt(ingest.memory.firstMinuteRssMiB, 'MiB')} → ${fmt(ingest.memory.lastMinuteRssMiB, 'MiB')} from first to last minute of ${ingest.memory.seconds} s` : `${fmt(ingest.maxRssMiB, 'MiB')} at most; no sustained run`],
    ['bytes on disk per raw JSON byte', '≤ 0.25', String(search.bytesOnDiskPerRawByte)],
    [`tail 100 newest (${fmt(search.lines, 'lines')})`, '≤ 30 ms', fmt(query('tail')?.apiMs, 'ms', 1)],
    ['common word + app filter, newest 100', '≤ 50 ms', fmt(query('common word')?.apiMs, 'ms', 1)],
    ['rare word, newest 100', '≤ 50 ms', fmt(query('rare word')?.apiMs, 'ms', 1)],
    ['phrase', '≤ 80 ms', fmt(query('phrase')?.apiMs, 'ms', 1)],
    ['meta field equality', '≤ 80 ms', fmt(query('meta field')?.apiMs, 'ms', 1)],
    ['numeric range', '≤ 80 ms', fmt(query('numeric range')?.apiMs, 'ms', 1)],
    ['24 h histogram of a word', '≤ 100 ms', fmt(query('24 h histogram')?.apiMs, 'ms', 1)],
    ['export of 10,000 lines (v1, to the last byte)', '≤ 250 ms', fmt(query('export of 10,000')?.apiMs, 'ms', 1)],
    [`fields sidebar, a day's search (${fmt(search.lines, 'lines')})`, '≤ 1 s (issue 40)', fmt(search.analysis?.fieldsDayMs, 'ms')],
    [`log patterns, the last hour (${fmt(search.analysis?.patternsLastHourLines, 'lines')})`, 'no target', fmt(search.analysis?.patternsLastHourMs, 'ms')],
    ['graph of 24 hourly buckets by app: count / p95', 'no target', `${fmt(search.analysis?.graphCountByAppMs, 'ms')} / ${fmt(search.analysis?.graphP95ByAppMs, 'ms')}`],
    ['line acknowledged → live-tail client', 'p99 ≤ 1 s', fmt(viewer.tailP99Ms, 'ms', 1)],
    ['line acknowledged → immediate alert at a webhook', 'p99 ≤ 2 s', fmt(viewer.alertP99Ms, 'ms', 1)],
    [
      `burst of ${fmt(burst.totalLines, 'lines')} at twice the sustainable rate, Fluent Bit Retry_Limit 1`,
      'absorbed: no chunk dropped, memory bounded',
      `${burst.droppedChunks} chunks dropped, ${burst.answers503} 503s, ${fmt(burst.linesPerSecond, 'lines/s')}, RSS ≤ ${fmt(burst.maxRssMiB, 'MiB')} (median of ${burst.runs})`,
    ],
    ['remote mode (LOGSTEAD_CLICKHOUSE_URL): lines/s per core of the node\'s own CPU', '≥ 150,000', `${fmt(remote.nodeLinesPerSecondPerCore, 'lines/s')} (${remote.nodeCpuMicrosPerLine} µs a line; ClickHouse stand-in ${remote.clickhouseCpuMicrosPerLine} µs beside it; median of ${remote.runs})`],
    ...['otlp-http', 'syslog-tcp'].map((name): [string, string, string] => [
      `${name} ingest, lines/s against /logs/ingest on the same lines in the same run`,
      '≥ 0.9',
      `${protocol(name)?.ratioToMezmo} (${fmt(protocol(name)?.linesPerSecond, 'lines/s')}, ${protocol(name)?.cpuMicrosPerLine} µs a line; median of ${protocols.runs})`,
    ]),
    ["an hour's archive: archiver CPU against the server CPU that ingesting the hour took", '< 0.05', `${archive.ratio} (${archive.archiveCpuMicrosPerLine} µs a line against ${archive.ingestCpuMicrosPerLine}; median of ${archive.runs})`],
  ];
  console.log(`\n| what | target | measured${quick ? ' (quick run: small data, short runs)' : ''} |`);
  console.log('|---|---|---|');
  for (const [what, target, measured] of rows) console.log(`| ${what} | ${target} | ${measured} |`);
  const date = new Date().toISOString();
  const file = path.join(root, 'bench/results', `suite-${date.replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify({ date, quick, ingest, search, viewer, burst, remote, protocols, archive, table: rows }, null, 2) + '\n');
  console.log(`\nsuite results written to ${path.relative(root, file)}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
