/**
 * bench/archive/floor.ts: what the engine's part of an archive costs, split, on a data directory
 * that `run.js --keep-data` left (its server stopped): reading the columns a record needs, building
 * the records without compressing them, the records gzipped as the archiver writes them, and two
 * floors that any gzip JSON Lines object in the export record's shape is above: the line's text
 * alone as JSON, and a record of the flat built-in keys written by the engine's own JSONEachRow
 * writer (no meta, no parsed fields), both gzipped at level 1. Each variant is one query over every
 * line in the store writing to a scratch file (INTO OUTFILE), its CPU the process's (chDB runs
 * in-process); variants take turns over the rounds and the medians are printed per line, and as
 * a share of `--ingest-us` (the ingest CPU per line that run.js printed for the same data) if given.
 * Usage:
 *   node dist/bench/archive/floor.js --data-dir DIR [--rounds N] [--ingest-us U]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Session } from 'chdb';
import { ARCHIVE_RECORD_COLUMNS, ARCHIVE_RECORD_SETTINGS } from '../../src/store/archive-record-sql.js';
import { ENGINE_ARGS } from '../../src/store/chdb-executor.js';
import { EMBEDDED_LOGS_DIR } from '../../src/store/open-executor.js';
import { median } from '../lib/stats.js';

const { values: options } = parseArgs({ options: { 'data-dir': { type: 'string' }, rounds: { type: 'string', default: '5' }, 'ingest-us': { type: 'string' } } });
if (!options['data-dir']) throw new Error('--data-dir is required (a directory run.js --keep-data left)');
const rounds = Number(options.rounds);
const ingestMicros = options['ingest-us'] === undefined ? undefined : Number(options['ingest-us']);

const RECORDS = `SELECT archive_record FROM (SELECT ts, id, ${ARCHIVE_RECORD_COLUMNS} FROM logs) ORDER BY ts, id SETTINGS ${ARCHIVE_RECORD_SETTINGS}`;
const FLAT_RECORD = `SELECT toString(id) AS _id, toUnixTimestamp64Milli(ts) AS _ts, ts AS timestamp, line AS _line, app AS _app, host AS _host, file AS _file,
  ip AS _ip, mac AS _mac, account AS _account, batch_id AS _bid, 'logstead' AS _ingester, logtype AS _logtype, size AS _mezmo_line_size, level, env, tags
  FROM logs ORDER BY ts, id SETTINGS output_format_json_escape_forward_slashes = 0, output_format_json_quote_64bit_integers = 0`;
const GZIP = `COMPRESSION 'gzip' LEVEL 1`;

const VARIANTS: Array<{ name: string; sql: string; into?: string }> = [
  { name: 'read the columns a record needs', sql: 'SELECT sum(length(line) + length(fields) + length(meta) + length(extra) + length(host) + length(app) + length(batch_id)) FROM logs' },
  { name: "the archiver's records, not compressed", sql: RECORDS, into: 'FORMAT TSVRaw' },
  { name: "the archiver's records, gzip level 1 (as archived)", sql: RECORDS, into: `${GZIP} FORMAT TSVRaw` },
  { name: 'floor: the line alone as JSON, gzip level 1', sql: 'SELECT line FROM logs ORDER BY ts, id', into: `${GZIP} FORMAT JSONEachRow` },
  { name: 'floor: flat built-in keys by JSONEachRow, gzip level 1', sql: FLAT_RECORD, into: `${GZIP} FORMAT JSONEachRow` },
];

const session = new Session(path.join(options['data-dir'], EMBEDDED_LOGS_DIR), { connectionArgs: ['--async_load_databases=0', ...ENGINE_ARGS] });
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-archive-floor-'));
try {
  const lines = Number(String(session.query('SELECT count() FROM logs', 'TSV')).trim());
  if (lines === 0) throw new Error('the store holds no lines');
  const micros = new Map<string, number[]>(VARIANTS.map(({ name }) => [name, []]));
  const bytes = new Map<string, number>();
  for (let round = 0; round < rounds; round++) {
    for (const { name, sql, into } of VARIANTS) {
      const file = path.join(scratch, 'out');
      const before = process.cpuUsage();
      await session.queryAsync(into ? `${sql} INTO OUTFILE '${file}' TRUNCATE ${into}` : sql);
      const used = process.cpuUsage(before);
      micros.get(name)!.push((used.user + used.system) / lines);
      if (into) bytes.set(name, fs.statSync(file).size / lines);
    }
  }
  console.log(`bench/archive/floor: ${lines.toLocaleString('en')} lines, ${rounds} rounds, medians of engine CPU per line${ingestMicros ? `; ingest took ${ingestMicros} µs a line` : ''}`);
  console.log('');
  console.log(`| variant | CPU per line | bytes per line written |${ingestMicros ? ' share of ingest |' : ''}`);
  console.log(`|---|---:|---:|${ingestMicros ? '---:|' : ''}`);
  for (const { name } of VARIANTS) {
    const value = median(micros.get(name)!);
    const written = bytes.get(name);
    console.log(`| ${name} | ${value.toFixed(2)} µs | ${written === undefined ? '' : written.toFixed(1)} |${ingestMicros ? ` ${(value / ingestMicros).toFixed(3)} |` : ''}`);
  }
} finally {
  session.close();
  fs.rmSync(scratch, { recursive: true, force: true });
}
