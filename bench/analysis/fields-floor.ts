/**
 * bench/analysis/fields-floor: what the fields sidebar's stored fields cost at least, step by
 * step, in one process on the engine alone (no HTTP), over a data directory that bench/search
 * filled, with the whole range selected:
 *
 *   node dist/bench/analysis/fields-floor.js --data-dir /tmp/keep-me [--runs 3]
 *
 * Each step adds one piece of the sidebar's work to the one before: reading the two JSON text
 * columns, parsing their keys, their keys and values, counting each distinct (path, value), then
 * the sidebar's own query (field-stats.ts). Each prints its median wall time and the process's CPU
 * (the engine's threads included), which the load of other work on the machine moves less.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from '../lib/stats.js';

/** Lines whose meta is indexed JSON, as the sidebar reads it. */
const META = `if(meta_indexed AND startsWith(meta, '{'), meta, '')`;
const CARRIES = `(notEmpty(fields) OR (meta_indexed AND startsWith(meta, '{')))`;
const PAIRS = `arrayConcat(arrayMap(kv -> (0, kv.1, kv.2), JSONExtractKeysAndValuesRaw(fields)), arrayMap(kv -> (1, kv.1, kv.2), JSONExtractKeysAndValuesRaw(${META})))`;

export const FLOOR_STEPS: Array<{ name: string; sql: string }> = [
  { name: 'read fields and meta', sql: `SELECT sum(length(fields)), sum(length(${META})) FROM logs` },
  { name: '+ parse their keys', sql: `SELECT count() FROM logs ARRAY JOIN arrayConcat(JSONExtractKeys(fields), JSONExtractKeys(${META})) AS key WHERE ${CARRIES}` },
  { name: '+ parse keys and values', sql: `SELECT count(), sum(length(kv.2)) FROM logs ARRAY JOIN arrayConcat(JSONExtractKeysAndValuesRaw(fields), JSONExtractKeysAndValuesRaw(${META})) AS kv WHERE ${CARRIES}` },
  {
    name: '+ count each distinct (path, value)',
    sql: `SELECT count(), sum(c) FROM (SELECT pair.1 AS source, pair.2 AS path, pair.3 AS value, count() AS c FROM logs ARRAY JOIN ${PAIRS} AS pair WHERE ${CARRIES} GROUP BY source, path, value)`,
  },
];

async function main() {
  const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, runs: { type: 'string', default: '3' } } });
  if (!values['data-dir']) throw new Error('give --data-dir: a data directory that bench/search filled');
  const { openChdbExecutor } = await import('../../src/store/chdb-executor.js');
  const { fieldStats } = await import('../../src/store/field-stats.js');
  const engine = await openChdbExecutor(path.join(values['data-dir'], 'clickhouse'));
  try {
    const [{ rows }] = await engine.rows<{ rows: string }>('SELECT count() AS rows FROM logs');
    console.log(`bench/analysis/fields-floor: ${Number(rows).toLocaleString('en')} lines (${values['data-dir']})`);
    const steps = [
      ...FLOOR_STEPS.map((step) => ({ name: step.name, run: () => engine.rows(step.sql) })),
      { name: "the sidebar's queries (field-stats.ts)", run: () => fieldStats(engine, 'logs', '1', {}, { top: 5, maxFields: 200 }) },
    ];
    for (const step of steps) {
      const wall: number[] = [];
      const cpu: number[] = [];
      for (let run = 0; run < Number(values.runs); run++) {
        const cpuBefore = process.cpuUsage();
        const started = performance.now();
        await step.run();
        wall.push(performance.now() - started);
        const used = process.cpuUsage(cpuBefore);
        cpu.push((used.user + used.system) / 1000);
      }
      console.log(`  ${step.name}: ${median(wall).toFixed(0)} ms median, ${median(cpu).toFixed(0)} ms of CPU (${wall.map((ms) => ms.toFixed(0)).join(', ')})`);
    }
  } finally {
    await engine.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
