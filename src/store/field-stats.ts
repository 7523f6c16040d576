import type { FieldStats } from '../wire/types.js';
import type { SqlExecutor, SqlParams } from './executor.js';

/**
 * The fields sidebar's analysis (GET /v1/viewer/fields): every field a search's lines carry, how
 * many lines have it, its top values and, for numbers, min, max, average and percentiles. Counts
 * are exact over every matching line: nothing is sampled.
 *
 * Two queries over the selection:
 * - the built-in fields from their own columns, all in one scan with GROUPING SETS (host, app,
 *   level, file, env are LowCardinality: grouping them reads their dictionaries' codes), and tags;
 * - the parsed fields (`fields`) and the indexed meta (`meta`) of each line, each JSON text parsed
 *   once into (path, value) pairs (three levels deep where a text holds an object, flat where it
 *   holds none), counted per (path, value), then per path. Parsing and counting are the cost, so
 *   it is done once a line and only for lines that have either.
 */

/** Where a stored field lives. */
export type FieldSource = 'builtin' | 'fields' | 'meta';

/** One field as stored, before it is named for search (viewer/field-summary.ts does that). */
export interface StoredField {
  source: FieldSource;
  /** A built-in field's name (host, app, level, file, env, tag), or the stored key path. */
  path: string[];
  /** Matching lines that have it. */
  lines: number;
  /** How many of those lines hold a number, a boolean, a JSON null (the rest hold text, objects or arrays). */
  numbers: number;
  booleans: number;
  nulls: number;
  /** The most frequent values, most lines first then by value: a built-in's text, a stored field's JSON text. */
  top: Array<{ raw: string; lines: number }>;
  /** Over the lines that hold a number; null when none does. p50... are values that occur (quantileExactWeighted). */
  stats: FieldStats | null;
}

export interface StoredFieldStats {
  /** Lines the selection matches. */
  lines: number;
  fields: StoredField[];
}

export interface FieldStatsOptions {
  /** Top values per field. */
  top: number;
  /** Stored fields listed at most, those most lines have first. */
  maxFields: number;
  /** Abandons the queries (the reader went away): SqlExecutor.rows. */
  signal?: AbortSignal;
}

/** The deepest level of an object that is read as keys; a value deeper down is one value, its JSON text. */
const MAX_DEPTH = 3;

/**
 * Stored paths are joined with NUL, which a field name never holds, so a key keeps its own dots and
 * is told apart from a nested path. A key that does hold NUL (JSON's \u0000) gets '.' in its place,
 * which leaves its field unnamed (search names no key with a dot in a path: query/field-names.ts).
 */
const PATH_JOIN = '\\0';
const nulFree = (key: string) => `replaceAll(${key}, ${`'${PATH_JOIN}'`}, '.')`;

/**
 * Array(Tuple(String, String)): a JSON object's leaves as (key path joined with NUL, the value's
 * JSON text), objects descended into MAX_DEPTH levels deep (as meta-paths-sql.ts reads meta). An
 * empty object, an array, a deeper object and a null are values. Text that is no JSON object gives none.
 */
function leafPairs(json: string, depth = 1, prefix = ''): string {
  const kv = `kv${depth}`;
  const path = prefix ? `concat(${prefix}, '${PATH_JOIN}', ${nulFree(`${kv}.1`)})` : nulFree(`${kv}.1`);
  const leaf = `[(${path}, ${kv}.2)]`;
  const body = depth < MAX_DEPTH ? `if(startsWith(${kv}.2, '{') AND ${kv}.2 != '{}', ${leafPairs(`${kv}.2`, depth + 1, path)}, ${leaf})` : leaf;
  return `arrayFlatten(arrayMap(${kv} -> ${body}, JSONExtractKeysAndValuesRaw(${json})))`;
}

/**
 * leafPairs, read flat where it can be: text with no '{' past its first character has no object
 * among its values, and text without `\u0000` or a NUL byte no key that holds NUL, so its keys and
 * values are its leaves as they are. Most lines are such (the walk above took about a third of the
 * query's time where no line had a nested object); searching the text for the three is cheap.
 */
function documentPairs(json: string): string {
  const flat = `position(${json}, '{', 2) = 0 AND position(${json}, '\\\\u0000') = 0 AND position(${json}, '${PATH_JOIN}') = 0`;
  return `if(${flat}, JSONExtractKeysAndValuesRaw(${json}), ${leafPairs(json)})`;
}

const BUILTIN_COLUMNS = ['host', 'app', 'level', 'file', 'env'] as const;

/**
 * Past this much memory the per-value counts spill to disk: a day of lines whose messages all
 * differ has as many values as lines, and the embedded engine shares the server's process.
 */
const GROUP_BY_MEMORY_BYTES = 512 * 1024 * 1024;

/** A whole number for an aggregate function's parameter, which cannot be bound. */
function literalCount(value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`field-stats: not a count: ${value}`);
  return value;
}

/** The built-in fields' values and line counts, and the number of matching lines. */
async function builtinFields(executor: SqlExecutor, table: string, where: string, params: SqlParams, top: number, signal?: AbortSignal) {
  const name = `multiIf(${BUILTIN_COLUMNS.map((column) => `grouping(${column}) = 0, '${column}'`).join(', ')}, '')`;
  const value = `multiIf(${BUILTIN_COLUMNS.map((column) => `grouping(${column}) = 0, toString(${column})`).join(', ')}, '')`;
  // The () set counts every matching line, and those with a tag (`tag:*`), whose values a line may have several of.
  const grouped = `SELECT ${name} AS name, ${value} AS value, count() AS c, countIf(notEmpty(tags)) AS tagged
      FROM ${table} WHERE ${where} GROUP BY GROUPING SETS (${BUILTIN_COLUMNS.map((column) => `(${column})`).join(', ')}, ())`;
  const tags = `SELECT 'tag' AS name, toString(arrayJoin(tags)) AS value, count() AS c, 0 AS tagged FROM ${table} WHERE ${where} GROUP BY value`;
  const rows = await executor.rows<{ name: string; value: string; c: string; tagged: string; lines: string }>(
    `SELECT name, value, c, tagged, sum(c) OVER (PARTITION BY name) AS lines FROM (${grouped} UNION ALL ${tags})
      WHERE value != '' OR name = '' ORDER BY c DESC, value LIMIT {top:UInt32} BY name`,
    { ...params, top },
    { signal, apart: true },
  );
  const total = rows.find((row) => row.name === '');
  const fields = new Map<string, StoredField>();
  for (const row of rows) {
    if (row.name === '') continue;
    let field = fields.get(row.name);
    if (!field) {
      const lines = row.name === 'tag' ? Number(total?.tagged ?? 0) : Number(row.lines);
      field = { source: 'builtin', path: [row.name], lines, numbers: 0, booleans: 0, nulls: 0, top: [], stats: null };
      fields.set(row.name, field);
    }
    field.top.push({ raw: row.value, lines: Number(row.c) });
  }
  return { lines: Number(total?.c ?? 0), fields: [...fields.values()] };
}

interface StoredFieldRow {
  source: 'fields' | 'meta';
  path: string;
  lines: string;
  numbers: string;
  booleans: string;
  nulls: string;
  top: Array<[string, number]>;
  min: number | null;
  max: number | null;
  avg: number | null;
  percentiles: number[];
}

/** Fields with as many lines in the order of their paths written with '.' between keys and NUL for a key's own dot (the order before paths were joined with NUL). */
const PATH_ORDER = `arrayStringConcat(arrayMap(key -> replaceAll(key, '.', '${PATH_JOIN}'), splitByChar('${PATH_JOIN}', path)), '.')`;

/** The parsed fields and indexed meta of the selection's lines, per key path, most lines first. */
async function storedFields(executor: SqlExecutor, table: string, where: string, params: SqlParams, options: FieldStatsOptions): Promise<StoredField[]> {
  const { signal } = options;
  // Meta kept as text only (a type clash, the daily cap) is not searched as fields, so not listed.
  const indexedMeta = `if(meta_indexed AND startsWith(meta, '{'), meta, '')`;
  // The source is a number (0 fields, 1 meta), not its name: a constant text in every pair took time.
  const pairs = `arrayConcat(arrayMap(leaf -> (0, leaf.1, leaf.2), ${documentPairs('fields')}), arrayMap(leaf -> (1, leaf.1, leaf.2), ${documentPairs(indexedMeta)}))`;
  // Grouped by the texts themselves, so every count is exact by construction. Grouping by two
  // 64-bit hashes instead needed the texts carried beside them (any(...)) and a third hash to catch
  // a collision: over 10 million lines that took more time and memory than the texts as the key
  // (bench/results/2026-11-28-fields-sidebar.md).
  // A value's kind from its JSON text's first character: a string, object or array starts with
  // its bracket or quote, a number with neither (a regular expression took longer).
  const values = `SELECT pair.1 AS field_source, pair.2 AS field_path, pair.3 AS value, count() AS c,
        multiIf(value IN ('true', 'false'), 'b', value = 'null', 'z', startsWith(value, '"') OR startsWith(value, '{') OR startsWith(value, '['), 's', 'n') AS kind,
        if(kind = 'n', toFloat64OrZero(value), 0) AS number
      FROM ${table} ARRAY JOIN ${pairs} AS pair
      WHERE ${where} AND (notEmpty(fields) OR (meta_indexed AND startsWith(meta, '{')))
      GROUP BY field_source, field_path, value`;
  const rows = await executor.rows<StoredFieldRow>(
    `SELECT if(field_source = 0, 'fields', 'meta') AS source, field_path AS path, sum(c) AS lines,
            sumIf(c, kind = 'n') AS numbers, sumIf(c, kind = 'b') AS booleans, sumIf(c, kind = 'z') AS nulls,
            arrayMap(entry -> (entry.2, -entry.1), groupArraySorted(${literalCount(options.top)})((-toInt64(c), value))) AS top,
            minIf(number, kind = 'n') AS min, maxIf(number, kind = 'n') AS max, sumIf(number * c, kind = 'n') / numbers AS avg,
            quantilesExactWeightedIf(0.5, 0.95, 0.99)(number, c, kind = 'n') AS percentiles
       FROM (${values}) GROUP BY field_source, field_path ORDER BY lines DESC, source, ${PATH_ORDER} LIMIT {maxFields:UInt32}
     SETTINGS output_format_json_quote_64bit_integers = 0, max_bytes_before_external_group_by = ${GROUP_BY_MEMORY_BYTES}`,
    { ...params, maxFields: options.maxFields },
    { signal, apart: true },
  );
  return rows.map((row) => {
    const numbers = Number(row.numbers);
    const [p50, p95, p99] = row.percentiles.map(Number);
    return {
      source: row.source,
      path: row.path.split('\0'),
      lines: Number(row.lines),
      numbers,
      booleans: Number(row.booleans),
      nulls: Number(row.nulls),
      top: row.top.map(([raw, lines]) => ({ raw, lines: Number(lines) })),
      stats: numbers > 0 ? { min: Number(row.min), max: Number(row.max), avg: Number(row.avg), p50, p95, p99 } : null,
    };
  });
}

/** Every field of the lines `where` selects (LogStore.fieldStats builds it with the reader's scope). */
export async function fieldStats(executor: SqlExecutor, table: string, where: string, params: SqlParams, options: FieldStatsOptions): Promise<StoredFieldStats> {
  const [builtins, stored] = await Promise.all([builtinFields(executor, table, where, params, options.top, options.signal), storedFields(executor, table, where, params, options)]);
  return { lines: builtins.lines, fields: [...builtins.fields, ...stored] };
}
