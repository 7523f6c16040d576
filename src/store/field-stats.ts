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
 *   once into (path, value) pairs three levels deep, counted per (path, value), then per path.
 *   Parsing is most of the cost, so it is done once a line and only for lines that have either.
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
}

/** The deepest level of an object that is read as keys; a value deeper down is one value, its JSON text. */
const MAX_DEPTH = 3;

/**
 * A key in a stored path. Paths are joined with '.', so a key's own dots become NUL, which no
 * field name holds: such a path is told apart from a nested one, and named by none.
 */
const pathKey = (key: string) => `replaceAll(${key}, '.', '\\0')`;

/**
 * Array(Tuple(String, String)): a JSON object's leaves as (key path joined with '.', the value's
 * JSON text), objects descended into MAX_DEPTH levels deep (as meta-paths-sql.ts reads meta). An
 * empty object, an array, a deeper object and a null are values. Text that is no JSON object gives none.
 */
function leafPairs(json: string, depth = 1, prefix = ''): string {
  const kv = `kv${depth}`;
  const path = prefix ? `concat(${prefix}, '.', ${pathKey(`${kv}.1`)})` : pathKey(`${kv}.1`);
  const leaf = `[(${path}, ${kv}.2)]`;
  const body = depth < MAX_DEPTH ? `if(startsWith(${kv}.2, '{') AND ${kv}.2 != '{}', ${leafPairs(`${kv}.2`, depth + 1, path)}, ${leaf})` : leaf;
  return `arrayFlatten(arrayMap(${kv} -> ${body}, JSONExtractKeysAndValuesRaw(${json})))`;
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
async function builtinFields(executor: SqlExecutor, table: string, where: string, params: SqlParams, top: number) {
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
  collided: number | string;
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

/** The parsed fields and indexed meta of the selection's lines, per key path, most lines first. */
async function storedFields(executor: SqlExecutor, table: string, where: string, params: SqlParams, options: FieldStatsOptions, hashed = true): Promise<StoredField[]> {
  // Meta kept as text only (a type clash, the daily cap) is not searched as fields, so not listed.
  const indexedMeta = `if(meta_indexed AND startsWith(meta, '{'), meta, '')`;
  const pairs = `arrayConcat(arrayMap(leaf -> ('fields', leaf.1, leaf.2), ${leafPairs('fields')}), arrayMap(leaf -> ('meta', leaf.1, leaf.2), ${leafPairs(indexedMeta)}))`;
  // Grouped by two 64-bit hashes, of the source and path and of the value's text, not by the
  // texts: a key of fixed size took half the time over many distinct values (ids, messages). A
  // second hash of each tells whether two texts met in one group; then the count is done again
  // by text, so every count stays exact.
  const keys = hashed ? 'cityHash64(pair.1, pair.2) AS field_key, cityHash64(pair.3) AS value_key' : 'pair.1 AS field_key, pair.2 AS path_key, pair.3 AS value_key';
  // A value's kind from its JSON text's first character: a string, object or array starts with
  // its bracket or quote, a number with neither (a regular expression took longer).
  const values = `SELECT ${keys}, any(pair.1) AS field_source, any(pair.2) AS field_path, any(pair.3) AS value, count() AS c,
        min(farmHash64(pair.1, pair.2, pair.3)) != max(farmHash64(pair.1, pair.2, pair.3)) AS collided,
        multiIf(value IN ('true', 'false'), 'b', value = 'null', 'z', startsWith(value, '"') OR startsWith(value, '{') OR startsWith(value, '['), 's', 'n') AS kind,
        if(kind = 'n', toFloat64OrZero(value), 0) AS number
      FROM ${table} ARRAY JOIN ${pairs} AS pair
      WHERE ${where} AND (notEmpty(fields) OR (meta_indexed AND startsWith(meta, '{')))
      GROUP BY ${hashed ? 'field_key, value_key' : 'field_key, path_key, value_key'}`;
  const rows = await executor.rows<StoredFieldRow>(
    `SELECT any(field_source) AS source, any(field_path) AS path, max(collided) AS collided, sum(c) AS lines,
            sumIf(c, kind = 'n') AS numbers, sumIf(c, kind = 'b') AS booleans, sumIf(c, kind = 'z') AS nulls,
            arrayMap(entry -> (entry.2, -entry.1), groupArraySorted(${literalCount(options.top)})((-toInt64(c), value))) AS top,
            minIf(number, kind = 'n') AS min, maxIf(number, kind = 'n') AS max, sumIf(number * c, kind = 'n') / numbers AS avg,
            quantilesExactWeightedIf(0.5, 0.95, 0.99)(number, c, kind = 'n') AS percentiles
       FROM (${values}) GROUP BY ${hashed ? 'field_key' : 'field_key, path_key'} ORDER BY lines DESC, source, path LIMIT {maxFields:UInt32}
     SETTINGS output_format_json_quote_64bit_integers = 0, max_bytes_before_external_group_by = ${GROUP_BY_MEMORY_BYTES}`,
    { ...params, maxFields: options.maxFields },
  );
  if (hashed && rows.some((row) => Number(row.collided))) return storedFields(executor, table, where, params, options, false);
  return rows.map((row) => {
    const numbers = Number(row.numbers);
    const [p50, p95, p99] = row.percentiles.map(Number);
    return {
      source: row.source,
      path: row.path.split('.').map((key) => key.replaceAll('\0', '.')),
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
  const [builtins, stored] = await Promise.all([builtinFields(executor, table, where, params, options.top), storedFields(executor, table, where, params, options)]);
  return { lines: builtins.lines, fields: [...builtins.fields, ...stored] };
}
