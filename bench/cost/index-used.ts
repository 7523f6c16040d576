/**
 * Whether the engine uses the text index for a compiled word search, with today's schema
 * (src/store/schema.ts, through LogStore.open) and with the index expression written as the engine
 * rewrites queries (table.ts FIXED_INDEXED_TEXT). Prints the EXPLAIN verdict, the count, and the
 * time of a count over 300,000 rows for each.
 *
 *   node dist/bench/cost/index-used.js
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compileQuery } from '../../src/query/compile.js';
import { openChdbExecutor } from '../../src/store/chdb-executor.js';
import { LogStore } from '../../src/store/log-store.js';
import { LOGS_TABLE } from '../../src/store/schema.js';
import { median } from '../lib/stats.js';
import { createTable } from './table.js';

const ROWS = 300_000;

for (const variant of ['schema.ts today', 'notEmpty(fields) in the index expression']) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-index-used-'));
  const executor = await openChdbExecutor(dir);
  if (variant === 'schema.ts today') await LogStore.open(executor);
  else await executor.exec(createTable({ index: { kind: 'text', notEmptyFields: true } }));
  await executor.exec(
    `INSERT INTO ${LOGS_TABLE} (account, ts, id, line) SELECT 'a', now64(3), number, if(number % 20 = 0, concat('foo timeout ', toString(number)), concat('bar baz ', hex(number))) FROM numbers(${ROWS})`,
  );
  const condition = compileQuery('timeout', null)!;
  const plan = (await executor.rows<Record<string, string>>(`EXPLAIN indexes = 1 SELECT count() FROM ${LOGS_TABLE} WHERE ${condition.sql}`, condition.params))
    .map((row) => Object.values(row)[0])
    .join('\n');
  const times: number[] = [];
  let count = '';
  for (let run = 0; run < 5; run++) {
    const began = performance.now();
    [{ count }] = await executor.rows<{ count: string }>(`SELECT count() AS count FROM ${LOGS_TABLE} WHERE ${condition.sql}`, condition.params);
    times.push(performance.now() - began);
  }
  console.log(`${variant}: text index ${/Name: search_tokens/.test(plan) ? 'used' : 'NOT used'}; count ${count}; ${median(times).toFixed(1)} ms (median of 5, ${ROWS.toLocaleString('en')} rows)`);
  await executor.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
