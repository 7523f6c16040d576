/**
 * The two compilers must agree: for random queries over random lines, the SQL run on the real
 * engine and the in-memory predicate select exactly the same lines. Fixed seed, bounded count.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { openTestExecutor } from '../testing/log-engine.js';
import type { SqlExecutor } from '../store/executor.js';
import { LogStore } from '../store/log-store.js';
import type { StoredLine } from '../store/types.js';
import { encodeRows } from '../store/row-encoding.js';
import { type AccessScope, type ScopeEntry, withinScope } from './access-scope.js';
import type { QueryNode } from './ast.js';
import { parseQuery } from './parser.js';
import { toPredicate } from './to-predicate.js';
import { toSql } from './to-sql.js';

const SEED = 20261122;
const RUNS = 400;
const ACCOUNT = 'differential';

/**
 * A small vocabulary, so random queries hit random lines often; with case, symbols and unicode,
 * and words that occur right after a non-ASCII letter (`ve` in `naïve`), which start a word.
 * `u00e9` is how `é` reads in a JSON line that escapes it.
 */
const WORDS = ['error', 'Error', 'ERRORS', 'timeout', 'TimeoutError', 'line', 'Linux', 'lin', 'user', 'user_id', 'café', 'Café', 'naïve', '日本', '漢字', 'über', 'u00e9', '404', '4040', '500', '3.14', 'foo-bar', 'foo.bar', '/var/log', 'a', 'x', '%VAR%', 'it\'s', 'say "hi"', 'back\\slash', '🙂', 'ok', 've', 'ber', 'b'];
const HOSTS = ['web-1', 'web-2', 'db', 'Web-10'];
const APPS = ['nginx', 'api', 'error.log', 'Api'];
const LEVELS = ['INFO', 'ERROR', 'WARN', ''];
const KEYS = ['status', 'user', 'name', 'code', 'tags'];

const word = fc.constantFrom(...WORDS);
const jsonValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.integer({ min: -5, max: 600 }),
    fc.constantFrom(0.5, 3.14, 1e21, -0),
    word,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 2 }),
    fc.dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 2 }),
  ),
})).value;
const object = fc.dictionary(fc.constantFrom(...KEYS), jsonValue, { maxKeys: 3 });

const lineArbitrary = fc.record({
  text: fc.array(fc.oneof(word, fc.constantFrom(' ', ' ', ', ', ': ', '-', '\n', '=', '(', ')')), { minLength: 1, maxLength: 8 }),
  host: fc.constantFrom(...HOSTS),
  app: fc.constantFrom(...APPS),
  level: fc.constantFrom(...LEVELS),
  env: fc.constantFrom('', 'prod', 'Staging'),
  file: fc.constantFrom('', '/var/log/syslog', '/var/log/nginx/error.log'),
  tags: fc.subarray(['blue', 'Green', 'k8s-prod', 'café']),
  meta: fc.option(object),
  metaIndexed: fc.boolean(),
  json: fc.option(object),
  escaped: fc.boolean(),
});

/**
 * JSON text with the escapes a sender may choose but JSON never requires: every non-ASCII UTF-16
 * unit as \uXXXX (Fluent Bit's logdna output, Python's json.dumps) and `/` as `\/` (PHP).
 */
const escapeOptional = (json: string) =>
  json.replace(/[^\x00-\x7f]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`).replace(/\//g, '\\/');

const samples = fc.sample(lineArbitrary, { seed: SEED, numRuns: 400 });
type Sample = (typeof samples)[number];

/** A sample as a stored row; its JSON part written with optional escapes when `escaped`. */
function storedLine(sample: Sample, account: string, index: number, escaped = sample.escaped): StoredLine {
  const json = sample.json ? JSON.stringify(sample.json) : '';
  const line = sample.json ? `${sample.text.join('')} ${escaped ? escapeOptional(json) : json}` : sample.text.join('');
  return {
    account,
    ts: 1_700_000_000_000 + index,
    id: String(index + 1),
    batch_id: 'b',
    host: sample.host,
    app: sample.app,
    level: sample.level,
    env: sample.env,
    file: sample.file,
    ip: '',
    mac: '',
    tags: sample.tags,
    line,
    logtype: sample.json ? 'json' : 'text',
    fields: json,
    meta: sample.meta ? JSON.stringify(sample.meta) : '',
    meta_indexed: sample.meta !== null && sample.metaIndexed,
    meta_note: '',
    extra: '',
    size: Buffer.byteLength(line),
  };
}

function makeLines(): StoredLine[] {
  return samples.map((sample, index) => storedLine(sample, ACCOUNT, index));
}

/** Random query text, built from the grammar's pieces. */
const modeArbitrary = fc.constantFrom('', '', '=', '==', '===');
const valueArbitrary = fc.oneof(word, word.map((w) => Array.from(w).slice(0, Math.max(1, Array.from(w).length - 2)).join('')));
const quote = (text: string) => `"${text.replace(/["\\]/g, '\\$&')}"`;
const plainValue = valueArbitrary.filter((v) => !/[\s()"':[\]]/.test(v) && !v.startsWith('-') && !v.startsWith('='));
const fieldName = fc.constantFrom('host', 'app', 'level', 'tag', 'file', 'env', 'source', ...KEYS.map((k) => `meta.${k}`), ...KEYS, 'meta.user.name', 'user.code', '_mezmo_line_size');
const leaf: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(modeArbitrary, plainValue).map(([mode, value]) => `${mode}${value}`),
  valueArbitrary.map(quote),
  fc.tuple(fieldName, modeArbitrary, plainValue).map(([field, mode, value]) => `${field}:${mode}${value}`),
  fc.tuple(fieldName, valueArbitrary).map(([field, value]) => `${field}:${quote(value)}`),
  fieldName.map((field) => `${field}:*`),
  fc.tuple(fc.constantFrom(...KEYS, '_mezmo_line_size', 'meta.status', 'meta.code'), fc.constantFrom('>', '>=', '<', '<='), fc.constantFrom('0', '3.14', '42', '404', '500', '1000000000000000000000', '-1')).map(([field, op, n]) => `${field}:${op}${n}`),
  fc.tuple(fc.constantFrom(...KEYS, 'meta.status'), fc.constantFrom('404', '500', '0', '3.14')).map(([field, n]) => `${field}:=${n}`),
  fc.tuple(fieldName, modeArbitrary, fc.array(plainValue, { minLength: 1, maxLength: 3 })).map(([field, mode, values]) => `${field}:${mode}[${values.join(',')}]`),
  fc.tuple(fc.constantFrom('status', 'meta.status', 'code'), fc.constantFrom('(>=400 <500 -404)', '(>100 AND <= 503)', '-(404 OR 500)', '(error OR ok)')).map(([field, group]) => `${field}:${group}`),
);
const queryArbitrary: fc.Arbitrary<string> = fc.letrec((tie) => ({
  query: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.tuple(tie('query'), tie('query')).map(([a, b]) => `${a} ${b}`),
    fc.tuple(tie('query'), tie('query')).map(([a, b]) => `${a} AND ${b}`),
    fc.tuple(tie('query'), tie('query')).map(([a, b]) => `${a} OR ${b}`),
    tie('query').map((q) => `-(${q})`),
    tie('query').map((q) => `NOT ${q}`),
    tie('query').map((q) => `(${q})`),
  ),
})).query;

let dir: string;
let executor: SqlExecutor;
let store: LogStore;
let lines: StoredLine[];

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-diff-'));
  executor = await openTestExecutor(dir);
  store = await LogStore.open(executor);
  lines = makeLines();
  await store.insert(encodeRows(lines));
});
after(async () => {
  await executor.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function sqlSelection(query: string): Promise<string[]> {
  const ids: string[] = [];
  const chunks = store.read(
    { account: ACCOUNT, fromMs: 0, toMs: 2_000_000_000_000, condition: toSql(parseQuery(query)) },
    { prefer: 'head', limit: 10_000, chronological: true },
  );
  for await (const chunk of chunks) ids.push(...chunk.map((row) => row.id));
  return ids;
}

/**
 * The same query with its word prefixes expanded inside the SQL by a subquery (the form a caller
 * gets that does not look them up first, as LogStore does), run on the engine directly.
 */
async function subquerySelection(account: string, query: string): Promise<string[]> {
  const condition = toSql(parseQuery(query));
  const rows = await executor.rows<{ id: string }>(
    `SELECT toString(id) AS id FROM logs WHERE account = {account:String} AND ${condition.sql} ORDER BY ts, id`,
    { ...condition.params, account },
  );
  return rows.map((row) => row.id);
}

/**
 * How many of an account's lines a query selects through the store (prefixes looked up first),
 * checked against the same query with its prefixes expanded inside the SQL.
 */
async function countBothForms(account: string, query: string, prefer: 'head' | 'tail'): Promise<number> {
  let n = 0;
  for await (const chunk of store.read({ account, fromMs: 0, toMs: 2_000_000_000_000, condition: toSql(parseQuery(query)) }, { prefer, limit: 10_000, chronological: true })) n += chunk.length;
  assert.equal((await subquerySelection(account, query)).length, n, `${query}: prefixes expanded in the SQL find as many`);
  return n;
}

function memorySelection(query: string): string[] {
  const predicate = toPredicate(parseQuery(query));
  return lines.filter(predicate).map((line) => line.id);
}

test('the stored rows read back exactly as generated', async () => {
  const stored = [];
  for await (const chunk of store.read({ account: ACCOUNT, fromMs: 0, toMs: 2_000_000_000_000 }, { prefer: 'head', limit: 10_000, chronological: true })) {
    stored.push(...chunk.map(({ ts_ms: _drop, ...row }: StoredLine & { ts_ms?: unknown }) => row));
  }
  assert.deepEqual(stored, lines);
});

test('SQL on the engine and the in-memory predicate select the same lines', async () => {
  let nonTrivial = 0;
  await fc.assert(
    fc.asyncProperty(queryArbitrary, async (query) => {
      const expected = memorySelection(query);
      const actual = await sqlSelection(query);
      if (expected.length > 0 && expected.length < lines.length) nonTrivial++;
      assert.deepEqual(actual, expected, `query: ${query}`);
      assert.deepEqual(await subquerySelection(ACCOUNT, query), expected, `query, prefixes expanded in the SQL: ${query}`);
    }),
    { seed: SEED, numRuns: RUNS },
  );
  assert.ok(nonTrivial > RUNS / 4, `only ${nonTrivial} of ${RUNS} queries selected some but not all lines`);
});

/**
 * Exact lists, which no query text produces (a group's `apps` and `hosts`): names stored, names
 * that only share a word or a case with them, and names no line has.
 */
const inArbitrary: fc.Arbitrary<QueryNode> = fc.oneof(
  fc.subarray([...APPS, 'API', 'ap', 'nginx-secrets', 'error'], { minLength: 1, maxLength: 3 }).map((values): QueryNode => ({ kind: 'in', field: 'app', values })),
  fc.subarray([...HOSTS, 'WEB-1', 'web', 'db-2'], { minLength: 1, maxLength: 3 }).map((values): QueryNode => ({ kind: 'in', field: 'host', values })),
);
const treeArbitrary: fc.Arbitrary<QueryNode> = fc.letrec<{ tree: QueryNode }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    inArbitrary,
    queryArbitrary.map(parseQuery),
    fc.tuple(tie('tree'), tie('tree')).map(([a, b]): QueryNode => ({ kind: 'and', children: [a, b] })),
    fc.tuple(tie('tree'), tie('tree')).map(([a, b]): QueryNode => ({ kind: 'or', children: [a, b] })),
    tie('tree').map((child): QueryNode => ({ kind: 'not', child })),
  ),
})).tree;
/** A scope's entries as members' groups give them: searches alone, or held to exact lists. */
const entryArbitrary: fc.Arbitrary<ScopeEntry> = fc.oneof(
  queryArbitrary,
  fc.record(
    { query: fc.oneof(fc.constant(''), queryArbitrary), apps: fc.subarray([...APPS, 'nginx-secrets'], { minLength: 1, maxLength: 2 }), hosts: fc.subarray([...HOSTS, 'WEB-1'], { minLength: 1, maxLength: 2 }) },
    { requiredKeys: ['query'] },
  ),
);
const scopeArbitrary: fc.Arbitrary<AccessScope> = fc.oneof(fc.constant(null), fc.array(entryArbitrary, { minLength: 1, maxLength: 3 }));

async function nodeSelection(node: QueryNode): Promise<string[]> {
  const ids: string[] = [];
  const chunks = store.read({ account: ACCOUNT, fromMs: 0, toMs: 2_000_000_000_000, condition: toSql(node) }, { prefer: 'head', limit: 10_000, chronological: true });
  for await (const chunk of chunks) ids.push(...chunk.map((row) => row.id));
  return ids;
}

test('exact app and host lists, in any tree and inside any scope, select the same lines in SQL and in memory', async () => {
  let nonTrivial = 0;
  await fc.assert(
    fc.asyncProperty(treeArbitrary, scopeArbitrary, async (tree, scope) => {
      const node = withinScope(tree, scope);
      const expected = lines.filter(toPredicate(node)).map((line) => line.id);
      if (expected.length > 0 && expected.length < lines.length) nonTrivial++;
      assert.deepEqual(await nodeSelection(node), expected, `tree: ${JSON.stringify(tree)}, scope: ${JSON.stringify(scope)}`);
    }),
    { seed: SEED, numRuns: RUNS / 2 },
  );
  assert.ok(nonTrivial > RUNS / 8, `only ${nonTrivial} of ${RUNS / 2} trees selected some but not all lines`);
  // Equality, not a word match: 'api' is not 'Api', and no part of a name admits the whole.
  const apps = (values: string[]) => lines.filter(toPredicate({ kind: 'in', field: 'app', values })).map((line) => line.app);
  assert.deepEqual([...new Set(apps(['api']))], ['api']);
  assert.deepEqual(apps(['ap', 'error']), []);
  assert.deepEqual(await nodeSelection({ kind: 'in', field: 'app', values: ['ap', 'error'] }), []);
});

test('a JSON line with optional escapes is selected exactly as the same line sent without them', async () => {
  // Every sample as a JSON line, its text as a value, so most lines carry non-ASCII words.
  const jsonSamples = samples.map((sample) => ({ ...sample, text: ['log:'], json: { ...sample.json, msg: sample.text.join('') } }));
  const plain = jsonSamples.map((sample, index) => storedLine(sample, 'twins-plain', index, false));
  const escaped = jsonSamples.map((sample, index) => storedLine(sample, 'twins-escaped', index, true));
  const withEscapes = escaped.filter((line) => line.line.includes('\\u')).length;
  assert.ok(withEscapes > samples.length / 4, `${withEscapes} lines with \\u escapes`);
  await store.insert(encodeRows([...plain, ...escaped]));
  const select = async (account: string, rows: StoredLine[], query: string) => {
    const predicate = toPredicate(parseQuery(query));
    const ids: string[] = [];
    for await (const chunk of store.read({ account, fromMs: 0, toMs: 2_000_000_000_000, condition: toSql(parseQuery(query)) }, { prefer: 'head', limit: 10_000, chronological: true })) {
      ids.push(...chunk.map((row) => row.id));
    }
    assert.deepEqual(ids, rows.filter(predicate).map((line) => line.id), `SQL and predicate disagree on ${account} for ${query}`);
    return ids;
  };
  // Line size differs, and the escapes' own text (u00e9) is only in the escaped line.
  const queries = queryArbitrary.filter((query) => !/_mezmo_line_size|u00/.test(query));
  await fc.assert(
    fc.asyncProperty(queries, async (query) => {
      assert.deepEqual(await select('twins-escaped', escaped, query), await select('twins-plain', plain, query), `query: ${query}`);
    }),
    { seed: SEED, numRuns: RUNS },
  );
  for (const query of ['café', '漢字', '"漢字"', '=Café', '==naïve', 'über', 'ber', '"/var/log"', '日', '-日本']) {
    assert.deepEqual(await select('twins-escaped', escaped, query), await select('twins-plain', plain, query), `query: ${query}`);
  }
});

test('a prefix shared by more index tokens than the expansion takes still finds every line', async () => {
  const account = 'many-tokens';
  const rows = Array.from({ length: 1200 }, (_, i) => ({ ...lines[0], account, id: String(100_000 + i), ts: 1_700_000_100_000 + i, line: `zz${i} Zz${i}x`, meta: '', meta_indexed: false, fields: '', logtype: 'text' }));
  await store.insert(encodeRows(rows));
  const count = (query: string) => countBothForms(account, query, 'head');
  assert.equal(await count('zz'), 1200);
  assert.equal(await count('=Zz'), 1200);
  assert.equal(await count('zz11'), 111); // zz11 and zz1100..zz1199
  assert.equal(await count('==zz7'), 1);
  assert.equal(await count('zzq'), 0); // no index token starts with it
  assert.equal(await count('-zzq'), 1200);
});

test('the newest lines come back the same whether the engine reads the range at once or in windows', async () => {
  const queries = ['"user_id"', 'host:web', '=Error', 'status:>=0', 'naïve OR 404', '-"foo-bar"'];
  for (const query of queries) {
    const condition = toSql(parseQuery(query));
    assert.ok(condition.readsLines, query);
    const expected = memorySelection(query);
    for (const limit of [1, 7, 1000]) {
      for (const chronological of [true, false]) {
        const ids: string[] = [];
        for await (const chunk of store.read({ account: ACCOUNT, fromMs: 1_700_000_000_000, toMs: 1_700_000_000_399, condition }, { prefer: 'tail', limit, chronological })) {
          ids.push(...chunk.map((row) => row.id));
        }
        const newest = expected.slice(-limit);
        assert.deepEqual(ids, chronological ? newest : [...newest].reverse(), `${query}, limit ${limit}`);
      }
    }
    const middle = expected[Math.floor(expected.length / 2)];
    if (middle) {
      const before: string[] = [];
      const position = { ts: 1_700_000_000_000 + Number(middle) - 1, id: middle };
      for await (const chunk of store.read({ account: ACCOUNT, fromMs: 1_700_000_000_000, toMs: 1_700_000_000_399, condition }, { prefer: 'tail', limit: 5, chronological: true, after: position })) {
        before.push(...chunk.map((row) => row.id));
      }
      const at = expected.indexOf(middle);
      assert.deepEqual(before, expected.slice(Math.max(0, at - 5), at), `${query}, before line ${middle}`);
    }
  }
});

test('a prefix whose tokens are too long to bind together (long ids) is scanned for, and finds every line', async () => {
  const account = 'long-tokens';
  // 600 tokens of 150 characters: over 64 KiB of tokens, which a ClickHouse server would refuse as one bound parameter.
  const rows = Array.from({ length: 600 }, (_, i) => ({ ...lines[0], account, id: String(200_000 + i), ts: 1_700_000_200_000 + i, line: `trace id${String(i).padStart(4, '0')}${'a'.repeat(142)} done`, meta: '', meta_indexed: false, fields: '', logtype: 'text' }));
  await store.insert(encodeRows(rows));
  const count = (query: string) => countBothForms(account, query, 'tail');
  // The expansion the store looked up is too long to bind, so the compiled condition scans the text.
  const expanded = toSql(parseQuery('id0'), new Map([['id0', rows.map((row) => row.line.split(' ')[1])]]));
  assert.equal(expanded.readsLines, true);
  assert.doesNotMatch(expanded.sql, /hasAnyTokens/);
  assert.ok(toSql(parseQuery('id0'), new Map([['id0', ['id0a']]])).sql.includes('hasAnyTokens'), 'a short expansion is bound');
  assert.equal(await count('id0'), 600);
  assert.equal(await count('id01'), 100);
  assert.equal(await count('-id0'), 0);
  assert.equal(await count('trace id0'), 600);
});
