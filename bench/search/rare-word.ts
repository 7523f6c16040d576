/**
 * Where a rare word's newest 100 goes, in one process (issue 42, point 4): on a data directory
 * that bench/search filled, Logstead runs in-process and each stage of the search is timed apart,
 * interleaved run by run, with the engine's query condition cache dropped before each (a user's
 * first search, as bench/search). Then one more run of each engine stage gives the engine's own
 * counters (system.events before and after: nothing else runs in the process, merges settled).
 *
 *   node dist/bench/search/rare-word.js --data-dir /work/bench-10m [--runs 15] [--query segfault]
 *     [--table logs ...] [--settings 'name = value, ...' ...] [--stages lookup,count,keys,rows,store,api]
 *
 * Stages:
 *   lookup   the word's prefix looked up in the text index's dictionary (LogStore.expanded)
 *   count    count() of the lines with its tokens: the index alone, no column read
 *   keys     ts and id of the newest 100 with its tokens: the index and the sort key
 *   rows     the store's read of the newest 100 with the tokens bound (every exported column)
 *   prewhere the same with the word's condition as PREWHERE
 *   twostep  the keys, then the lines by their keys
 *   histogram the word's 24 h histogram (96 buckets by level), as LogStore.histogram
 *   store    LogStore.read as the API calls it (lookup + rows)
 *   api      GET /v1/export?size=100, to the last byte
 * `--table` reads another table in the same directory (a copy of logs built by a lever); the
 * store and api stages read only `logs`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startLogstead } from '../../src/app.js';
import { compileQuery } from '../../src/query/compile.js';
import { loadSettings } from '../../src/settings.js';
import type { SqlParams } from '../../src/store/executor.js';
import type { SqlCondition } from '../../src/store/types.js';
import { median } from '../lib/stats.js';

const { values: options } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    runs: { type: 'string', default: '15' },
    query: { type: 'string', default: 'segfault' },
    table: { type: 'string', multiple: true },
    /** Extra settings for the engine stages, each a variant timed beside the others (`a = 1, b = 0`). */
    settings: { type: 'string', multiple: true },
    /** Which stages to time, e.g. `rows,api` (all by default). */
    stages: { type: 'string', default: 'lookup,count,keys,rows,prewhere,twostep,store,api' },
  },
});
if (!options['data-dir']) throw new Error('--data-dir: a directory bench/search filled');
const dataDir = options['data-dir'];
const RUNS = Number(options.runs);
const tables = options.table ?? ['logs'];

/** The exported columns, as LogStore.readOnce selects them. */
const COLUMNS = `account, toUnixTimestamp64Milli(ts) AS ts_ms, id, batch_id, host, app, level, env, file, ip, mac,
  tags, line, logtype, fields, meta, meta_indexed, meta_note, extra, size`;
const READ_SETTINGS = 'output_format_json_quote_64bit_integers = 1, use_top_k_dynamic_filtering = 0';
const variants = options.settings ?? [''];

/** Counters worth printing, of the many the engine keeps. */
const COUNTERS = [
  'SelectedParts',
  'SelectedPartsTotal',
  'SelectedRanges',
  'SelectedMarks',
  'SelectedMarksTotal',
  'SelectedRows',
  'SelectedBytes',
  'ReadCompressedBytes',
  'CompressedReadBufferBlocks',
  'CompressedReadBufferBytes',
  'OpenedFileCacheHits',
  'OpenedFileCacheMisses',
  'MarkCacheHits',
  'MarkCacheMisses',
  'QueryAnalysisMicroseconds',
  'FilteringMarksWithPrimaryKeyMicroseconds',
  'FilteringMarksWithSecondaryKeysMicroseconds',
  'OSCPUVirtualTimeMicroseconds',
  'UserTimeMicroseconds',
  'SystemTimeMicroseconds',
  'RealTimeMicroseconds',
];

async function main() {
  const dataset = JSON.parse(fs.readFileSync(path.join(dataDir, 'bench-search-dataset.json'), 'utf8')) as { spanStart: number; lines: number };
  const credentials = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8'));
  const running = await startLogstead(loadSettings({ LOGSTEAD_DATA_DIR: dataDir, LOGSTEAD_PORT: '0', LOGSTEAD_LOG_LEVEL: 'warn' }));
  const { engine, store } = running;
  try {
    for (let settled = 0, last = -1; settled < 300; settled += 5) {
      const { activeParts, merges } = await store.stats();
      if (merges === 0 && activeParts === last) break;
      last = merges === 0 ? activeParts : -1;
      await new Promise((resolve) => setTimeout(resolve, 5000));
    }
    const from = dataset.spanStart - 60_000;
    const to = Date.now() + 60_000;
    console.log(`rare-word: "${options.query}" over ${dataset.lines.toLocaleString('en')} lines in ${dataDir}; ${os.cpus().length} cores, load ${os.loadavg().map((v) => v.toFixed(2)).join(' ')}`);
    console.log(`engine ${(await engine.rows<{ v: string }>('SELECT version() AS v'))[0].v}; settings: ${READ_SETTINGS}`);
    if (variants.length > 1) variants.forEach((variant, at) => console.log(`  variant s${at}: ${variant || '(none)'}`));
    for (const table of tables) {
      const parts = await engine.rows<Record<string, string>>(
        `SELECT count() AS parts, sum(rows) AS total_rows, sum(marks) AS total_marks, formatReadableSize(sum(bytes_on_disk)) AS disk,
                formatReadableSize(sum(secondary_indices_compressed_bytes)) AS text_index, groupArray(rows) AS part_rows
           FROM system.parts WHERE database = currentDatabase() AND table = {table:String} AND active`,
        { table },
      );
      console.log(`${table}: ${JSON.stringify(parts[0])}`);
    }

    const condition = compileQuery(options.query, null) as SqlCondition;
    const lookupSql = condition.prefixes
      ? condition.prefixes.words.map((_word, at) => `SELECT ${at} AS word, token FROM (${condition.prefixes!.tokensSql(`{prefix${at}:String}`)})`).join(' UNION ALL ')
      : 'SELECT 1';
    const lookupParams: SqlParams = Object.fromEntries((condition.prefixes?.words ?? []).map((word, at) => [`prefix${at}`, word]));
    const found = await engine.rows<{ word: number; token: string }>(lookupSql, lookupParams);
    const tokens = new Map((condition.prefixes?.words ?? []).map((word, at) => [word, found.filter((row) => Number(row.word) === at).map((row) => row.token)]));
    const bound = condition.prefixes ? condition.prefixes.expanded(tokens) : condition;
    console.log(`tokens: ${JSON.stringify(Object.fromEntries(tokens))}; reads lines: ${bound.readsLines}`);
    const params: SqlParams = { ...bound.params, account: credentials.account, fromMs: from, toMs: to };
    const where = `account = {account:String} AND ts >= fromUnixTimestamp64Milli({fromMs:Int64}) AND ts <= fromUnixTimestamp64Milli({toMs:Int64}) AND ${bound.sql}`;

    type Stage = { name: string; run: () => Promise<unknown>; sql?: string };
    const stages: Stage[] = [{ name: 'lookup', sql: lookupSql, run: () => engine.rows(lookupSql, lookupParams) }];
    for (const table of tables) {
      for (const [at, variant] of variants.entries()) {
        const suffix = `${tables.length > 1 ? ` ${table}` : ''}${variants.length > 1 ? ` s${at}` : ''}`;
        const settings = variant ? `${READ_SETTINGS}, ${variant}` : READ_SETTINGS;
        const countSql = `SELECT count() FROM ${table} WHERE ${where} SETTINGS ${settings}`;
        const keysSql = `SELECT ts, id FROM ${table} WHERE ${where} ORDER BY ts DESC, id DESC LIMIT 100 SETTINGS ${settings}`;
        const rowsSql = `SELECT * FROM (SELECT ${COLUMNS} FROM ${table} WHERE ${where} ORDER BY ts DESC, id DESC LIMIT 100) ORDER BY ts_ms ASC, id ASC SETTINGS ${settings}`;
        // The word's condition as PREWHERE: the other columns are then read only for granules with a hit, and
        // only up to a granule's last hit, where in WHERE they are read for the whole of every candidate granule.
        const prewhereSql = `SELECT * FROM (SELECT ${COLUMNS} FROM ${table} PREWHERE ${bound.sql} WHERE ${where} ORDER BY ts DESC, id DESC LIMIT 100) ORDER BY ts_ms ASC, id ASC SETTINGS ${settings}`;
        // The newest 100's keys from the index first, then their lines by the primary key.
        const byKeysSql = `SELECT ${COLUMNS} FROM ${table} WHERE account = {account:String} AND ts IN {hitTs:Array(DateTime64(3, 'UTC'))} AND (ts, id) IN (SELECT arrayJoin(arrayZip({hitTs:Array(DateTime64(3, 'UTC'))}, arrayMap(x -> toUInt64(x), {hitIds:Array(String)}))))
          ORDER BY ts ASC, id ASC SETTINGS ${settings}`;
        const twoStep = async () => {
          const keys = await engine.rows<{ ts: string; id: string }>(`SELECT toUnixTimestamp64Milli(ts) AS ts, toString(id) AS id FROM (${keysSql.replace(/ SETTINGS .*$/, '')}) SETTINGS ${settings}`, params);
          return drain(engine.stream(byKeysSql, { ...params, hitTs: keys.map((k) => new Date(Number(k.ts)).toISOString().replace('T', ' ').replace('Z', '')), hitIds: keys.map((k) => k.id) }));
        };
        // The 24 h histogram as LogStore.histogram asks it (96 buckets).
        const histogramSql = `SELECT intDiv(toUnixTimestamp64Milli(ts) - {fromMs:Int64}, ${Math.ceil((to - from + 1) / 96)}) AS bucket, level, count() AS count
          FROM ${table} WHERE ${where} GROUP BY bucket, level ORDER BY bucket SETTINGS ${settings}`;
        stages.push(
          { name: `histogram${suffix}`, sql: histogramSql, run: () => engine.rows(histogramSql, params) },
          { name: `count${suffix}`, sql: countSql, run: () => engine.rows(countSql, params) },
          { name: `keys${suffix}`, sql: keysSql, run: () => engine.rows(keysSql, params) },
          { name: `rows${suffix}`, sql: rowsSql, run: () => drain(engine.stream(rowsSql, params)) },
          { name: `prewhere${suffix}`, sql: prewhereSql, run: () => drain(engine.stream(prewhereSql, params)) },
          { name: `twostep${suffix}`, run: twoStep },
        );
      }
    }
    const filter = { account: credentials.account, fromMs: from, toMs: to, condition: compileQuery(options.query, null) };
    stages.push({ name: 'store', run: () => drain(store.read(filter, { prefer: 'tail', limit: 100, chronological: true })) });
    const url = `${running.url}/v1/export?${new URLSearchParams({ from: String(from), to: String(to), size: '100', query: options.query })}`;
    stages.push({
      name: 'api',
      run: async () => {
        const response = await fetch(url, { headers: { servicekey: credentials.serviceKey } });
        const text = await response.text();
        if (response.status !== 200) throw new Error(`api: ${response.status} ${text}`);
        return text.split('\n').filter(Boolean).length;
      },
    });

    const wanted = new Set(options.stages.split(','));
    stages.splice(0, stages.length, ...stages.filter((stage) => wanted.has(stage.name.split(' ')[0])));
    const firstSearch = () => engine.exec('SYSTEM DROP QUERY CONDITION CACHE');
    for (const stage of stages) await stage.run(); // warm-up
    const times = new Map<string, number[]>(stages.map((stage) => [stage.name, []]));
    for (let run = 0; run < RUNS; run++) {
      for (const stage of stages) {
        await firstSearch();
        const started = performance.now();
        await stage.run();
        times.get(stage.name)!.push(performance.now() - started);
      }
    }
    console.log(`hits (last stage): ${await stages.at(-1)!.run()}\n`);
    console.log('| stage | median ms | min | max |');
    console.log('|---|---:|---:|---:|');
    for (const [name, values] of times) {
      console.log(`| ${name} | ${median(values).toFixed(1)} | ${Math.min(...values).toFixed(1)} | ${Math.max(...values).toFixed(1)} |`);
    }

    // The engine's counters for one run of each engine stage.
    const counters = async () =>
      new Map((await engine.rows<{ name: string; value: string }>('SELECT name, value FROM system.events')).map((row) => [row.name, Number(row.value)]));
    console.log('\ncounters (one run each, system.events before and after):');
    for (const stage of stages.filter((s) => s.sql !== undefined)) {
      await firstSearch();
      const before = await counters();
      await stage.run();
      const after = await counters();
      const delta = COUNTERS.map((name) => [name, (after.get(name) ?? 0) - (before.get(name) ?? 0)] as const).filter(([, value]) => value !== 0);
      const textIndex = [...after].filter(([name]) => /TextIndex|Lazy|Posting|Dictionary/i.test(name)).map(([name, value]) => [name, value - (before.get(name) ?? 0)] as const).filter(([, value]) => value !== 0);
      console.log(`  ${stage.name}: ${[...delta, ...textIndex].map(([name, value]) => `${name}=${value}`).join(' ')}`);
    }
    for (const table of tables) {
      const plan = await engine.rows<{ explain: string }>(`EXPLAIN indexes = 1 SELECT ${COLUMNS} FROM ${table} WHERE ${where} ORDER BY ts DESC, id DESC LIMIT 100 SETTINGS ${READ_SETTINGS}`, params);
      console.log(`\nEXPLAIN indexes = 1 (${table}):\n${plan.map((row) => row.explain).join('\n')}`);
    }
  } finally {
    await running.close();
  }
}

async function drain(chunks: AsyncIterable<unknown[]>): Promise<number> {
  let rows = 0;
  for await (const chunk of chunks) rows += chunk.length;
  return rows;
}

await main();
