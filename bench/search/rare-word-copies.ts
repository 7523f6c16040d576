/**
 * Copies of the log table in another layout, for the rare word's levers (issue 42, point 4): each
 * copy is created from the table's own CREATE statement with other table settings or another text
 * index, filled by one INSERT SELECT of every line, and left to merge; a copy with the table's own
 * settings (`same`) is built the same way, so the copies compare with each other on parts made
 * alike. Then `rare-word.js --table logs_same --table logs_g2048 ...` times them side by side.
 *
 *   node dist/bench/search/rare-word-copies.js --data-dir /work/bench-10m --copy same --copy g2048
 *
 * Prints each copy's build time, parts, bytes on disk and its largest columns' and text index's
 * sizes. `--drop` removes the copies named instead.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openChdbExecutor } from '../../src/store/chdb-executor.js';
import { EMBEDDED_LOGS_DIR } from '../../src/store/open-executor.js';
import type { SqlExecutor } from '../../src/store/executor.js';

const { values: options } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    copy: { type: 'string', multiple: true, default: [] },
    drop: { type: 'boolean', default: false },
  },
});
if (!options['data-dir']) throw new Error('--data-dir: a directory bench/search filled');

/** What each copy changes in the table's CREATE statement. */
const COPIES: Record<string, (create: string) => string> = {
  same: (create) => create,
  g4096: (create) => withSettings(create, 'index_granularity = 4096'),
  g2048: (create) => withSettings(create, 'index_granularity = 2048'),
  g1024: (create) => withSettings(create, 'index_granularity = 1024'),
  // The text index covers as many rows per index granule as today's, at a quarter of the table's granule.
  'g2048-ti4': (create) => withTextIndexGranularity(withSettings(create, 'index_granularity = 2048'), 4),
  'g1024-ti8': (create) => withTextIndexGranularity(withSettings(create, 'index_granularity = 1024'), 8),
  // Granules cut by bytes: a granule holds at most this many bytes of all its columns.
  b1m: (create) => withSettings(create, 'index_granularity_bytes = 1048576'),
  b512k: (create) => withSettings(create, 'index_granularity_bytes = 524288'),
  // Smaller compressed blocks, so a line is read with less of its granule's neighbours.
  c64k: (create) => withSettings(create, 'min_compress_block_size = 16384, max_compress_block_size = 65536'),
  c8k: (create) => withSettings(create, 'min_compress_block_size = 8192, max_compress_block_size = 65536'),
  // The same, but the columns every histogram reads for every row keep the engine's blocks.
  'c8k-lv': (create) => withSettings(create, 'min_compress_block_size = 8192, max_compress_block_size = 65536'),
};

/** Statements run on a copy once created, before it is filled. */
const AFTER_CREATE: Record<string, string[]> = {
  'c8k-lv': ['account', 'level'].map(
    (column) => `ALTER TABLE {table} MODIFY COLUMN ${column} MODIFY SETTING min_compress_block_size = 65536, max_compress_block_size = 1048576`,
  ),
};

/** The statement with these table settings, in place of the same ones it names (the engine writes index_granularity out). */
function withSettings(create: string, settings: string): string {
  let statement = create;
  for (const setting of settings.split(',').map((text) => text.trim())) {
    const name = setting.split('=')[0].trim();
    const named = new RegExp(`\\b${name} = \\d+`);
    statement = named.test(statement) ? statement.replace(named, setting) : statement.replace(/\bSETTINGS\b/, `SETTINGS ${setting},`);
  }
  return statement;
}

/** The text index's GRANULARITY (table granules per index granule) set to `granules`. */
function withTextIndexGranularity(create: string, granules: number): string {
  const replaced = create.replace(/(INDEX search_tokens [\s\S]*?TYPE text\([^)]*\)) GRANULARITY \d+/, `$1 GRANULARITY ${granules}`);
  if (replaced === create) throw new Error('no GRANULARITY on the text index in the CREATE statement');
  return replaced;
}

async function settle(engine: SqlExecutor, table: string): Promise<void> {
  for (let last = -1, waited = 0; waited < 900; waited += 5) {
    const [row] = await engine.rows<{ parts: string; merges: string }>(
      `SELECT (SELECT count() FROM system.parts WHERE database = currentDatabase() AND table = {table:String} AND active) AS parts,
              (SELECT count() FROM system.merges WHERE database = currentDatabase() AND table = {table:String}) AS merges`,
      { table },
    );
    if (Number(row.merges) === 0 && Number(row.parts) === last) return;
    last = Number(row.merges) === 0 ? Number(row.parts) : -1;
    await new Promise((resolve) => setTimeout(resolve, 5000));
  }
}

async function describe(engine: SqlExecutor, table: string): Promise<void> {
  const [parts] = await engine.rows<Record<string, string>>(
    `SELECT count() AS parts, sum(rows) AS total_rows, sum(marks) AS total_marks, sum(bytes_on_disk) AS disk_bytes,
            sum(secondary_indices_compressed_bytes) AS text_index_bytes, sum(marks_bytes) AS marks_bytes
       FROM system.parts WHERE database = currentDatabase() AND table = {table:String} AND active`,
    { table },
  );
  const columns = await engine.rows<Record<string, string>>(
    `SELECT column, sum(column_data_compressed_bytes) AS compressed, sum(column_data_uncompressed_bytes) AS uncompressed
       FROM system.parts_columns WHERE database = currentDatabase() AND table = {table:String} AND active
      GROUP BY column ORDER BY compressed DESC LIMIT 5`,
    { table },
  );
  console.log(`  ${table}: ${JSON.stringify(parts)}`);
  console.log(`    largest columns: ${columns.map((c) => `${c.column} ${(Number(c.compressed) / 2 ** 20).toFixed(1)} MiB (of ${(Number(c.uncompressed) / 2 ** 20).toFixed(0)})`).join(', ')}`);
}

async function main() {
  const dataDir = options['data-dir']!;
  if (!fs.existsSync(path.join(dataDir, 'bench-search-dataset.json'))) throw new Error(`${dataDir} was not filled by bench/search`);
  // The engine lives in the data directory's own folder for it, as the server opens it.
  const engine = await openChdbExecutor(path.join(dataDir, EMBEDDED_LOGS_DIR));
  try {
    for (const name of options.copy) {
      if (!(name in COPIES)) throw new Error(`unknown copy ${name}; known: ${Object.keys(COPIES).join(', ')}`);
      const table = `logs_${name.replace(/-/g, '_')}`;
      if (options.drop) {
        await engine.exec(`DROP TABLE IF EXISTS ${table} SYNC`);
        console.log(`dropped ${table}`);
        continue;
      }
      const [{ create }] = await engine.rows<{ create: string }>(
        `SELECT create_table_query AS create FROM system.tables WHERE database = currentDatabase() AND name = 'logs'`,
      );
      const statement = COPIES[name](create).replace(/^CREATE TABLE (\S+)\.logs /, `CREATE TABLE $1.${table} `);
      await engine.exec(`DROP TABLE IF EXISTS ${table} SYNC`);
      await engine.exec(statement);
      for (const alter of AFTER_CREATE[name] ?? []) await engine.exec(alter.replaceAll('{table}', table));
      const started = performance.now();
      await engine.exec(`INSERT INTO ${table} SELECT * FROM logs`);
      const inserted = (performance.now() - started) / 1000;
      await settle(engine, table);
      console.log(`${table}: inserted in ${inserted.toFixed(0)} s, settled after ${((performance.now() - started) / 1000).toFixed(0)} s`);
      console.log(`  ${statement.slice(statement.indexOf('INDEX')).replace(/\s+/g, ' ')}`);
    }
    await describe(engine, 'logs');
    for (const name of options.copy) if (!options.drop) await describe(engine, `logs_${name.replace(/-/g, '_')}`);
  } finally {
    await engine.close();
  }
}

await main();
