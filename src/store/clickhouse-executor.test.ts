import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { testDatabaseUrl } from '../testing/log-engine.js';
import { openClickHouseExecutor } from './clickhouse-executor.js';
import type { SqlExecutor } from './executor.js';

// The server executor on its own, over HTTP: the test server of this run (the chDB HTTP helper,
// or LOGSTEAD_TEST_CLICKHOUSE_URL), whichever executor the rest of the run tests.

let url: string;
let executor: SqlExecutor;

before(async () => {
  url = await testDatabaseUrl(`clickhouse-executor-${process.pid}-${Date.now()}`);
  executor = await openClickHouseExecutor({ url });
  await executor.exec('CREATE TABLE t (s String, tags Array(String), id UInt64) ENGINE = MergeTree ORDER BY id');
});
after(() => executor.close());

const awkward = ["tab\there", 'new\nline', 'back\\slash', "quote'd", 'naïve ☃', '\\N', ''];

test('values survive the trip both ways: TabSeparated inserts, bound parameters, 64-bit ids', async () => {
  const tsv = (value: string) => value.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n');
  const quoted = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\t/g, '\\t').replace(/\n/g, '\\n')}'`;
  const rows = awkward.map((value, i) => `${tsv(value)}\t[${awkward.map(quoted).join(',')}]\t${18446744073709551615n - BigInt(i)}\n`);
  await executor.insertTabSeparated('t', ['s', 'tags', 'id'], Buffer.from(rows.join('')));
  for (const [i, value] of awkward.entries()) {
    const found = await executor.rows<{ s: string; tags: string[]; id: string }>(
      'SELECT s, tags, id FROM t WHERE s = {value:String} AND has({values:Array(String)}, s) SETTINGS output_format_json_quote_64bit_integers = 1',
      { value, values: awkward },
    );
    assert.equal(found.length, 1, JSON.stringify(value));
    assert.equal(found[0].s, value);
    assert.deepEqual(found[0].tags, awkward);
    assert.equal(found[0].id, String(18446744073709551615n - BigInt(i)));
  }
});

test("an engine error rejects with the server's code and reason, and the executor goes on working", async () => {
  await assert.rejects(executor.rows('SELECT no_such_function()'), (error: Error & { code?: string }) => error.code === '46' && /no_such_function/.test(error.message));
  await assert.rejects(executor.exec("ALTER TABLE no_such_table DROP PARTITION ID '20260101'"), /no_such_table/);
  const streamed = async () => {
    for await (const _ of executor.stream('SELECT throwIf(number = 3, {why:String}) FROM numbers(10)', { why: 'stopped on purpose' }));
  };
  await assert.rejects(streamed(), /stopped on purpose/);
  assert.deepEqual(await executor.rows('SELECT 1 AS one'), [{ one: 1 }]);
});

test('a stream read only in part gives its connection back', { timeout: 60_000 }, async () => {
  // More than the client's connection pool (10): abandoned streams must not hold theirs.
  for (let i = 0; i < 25; i++) {
    for await (const rows of executor.stream<{ number: string }>('SELECT number FROM numbers(2000000)')) {
      assert.ok(rows.length > 0);
      break;
    }
  }
  assert.deepEqual(await executor.rows('SELECT 2 AS two'), [{ two: 2 }]);
});

test("opening fails at once, with the server's reason, when the database does not exist", async () => {
  const missing = new URL(url);
  missing.pathname = '/logstead_no_such_database';
  await assert.rejects(openClickHouseExecutor({ url: missing.toString() }), /logstead_no_such_database/);
});

test("several requests' rows go out as one insert body, in order, none lost at the joins", async () => {
  await executor.exec('CREATE TABLE parts (s String, id UInt64) ENGINE = MergeTree ORDER BY id');
  const parts = [0, 1, 2].map((part) => Buffer.from(Array.from({ length: 1000 }, (_, i) => `part ${part} naïve ☃\t${part * 1000 + i}\n`).join('')));
  await executor.insertTabSeparated('parts', ['s', 'id'], parts);
  const [counted] = await executor.rows<{ rows: number | string; ids: number | string }>('SELECT count() AS rows, uniqExact(id) AS ids FROM parts');
  assert.deepEqual([Number(counted.rows), Number(counted.ids)], [3000, 3000]);
  const last = await executor.rows<{ s: string }>('SELECT s FROM parts WHERE id = 2999');
  assert.deepEqual(last, [{ s: 'part 2 naïve ☃' }]);
});
