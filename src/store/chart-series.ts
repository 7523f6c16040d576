import type { SqlExecutor, SqlParams } from './executor.js';

/*
 * The analysis queries behind a board's graphs (and the viewer's "chart this"): a measure of the
 * lines in equal time buckets, optionally split by a field's most frequent values. LogStore hands
 * in the selection it built for the reader (organisation, range, filters, the query held inside
 * the reader's scope), so every number here comes from lines the reader may see.
 */

/**
 * A field a graph measures or breaks down by, as the store reads it. The boards layer maps the
 * search language's field names onto these (query/parser.ts fieldByName), so that `status`,
 * `meta.customer` and `app` mean here what they mean in a search.
 */
export type ChartField =
  | { kind: 'column'; column: 'host' | 'app' | 'level' | 'file' | 'env' }
  | { kind: 'size' }
  /** A key path in the JSON of a line's parsed fields (`fields`) or its indexed meta (`meta`). */
  | { kind: 'json'; column: 'fields' | 'meta'; path: string[] };

export type ChartAggregate = 'count' | 'sum' | 'avg' | 'min' | 'max' | 'unique' | 'p50' | 'p90' | 'p95' | 'p99';

export interface ChartQuery {
  bucketMs: number;
  measure: { type: ChartAggregate; field?: ChartField };
  breakdown?: { field: ChartField; limit: number };
}

export interface ChartRows {
  /** The breakdown's top values, the most lines first (ties by value); empty without a breakdown. */
  values: string[];
  /**
   * One row for each bucket and series that has lines. `series` is n for the nth of `values`
   * (from 1), and 0 for every other line: the whole selection without a breakdown, or the lines
   * outside the top values (including those without the field) with one.
   */
  rows: Array<{ bucket: number; series: number; value: number | null }>;
}

/** The JSON value types search compares as numbers (query/to-sql.ts); any other value is not a number. */
const NUMERIC_JSON = "('Int64', 'UInt64', 'Double')";
const QUANTILES: Partial<Record<ChartAggregate, number>> = { p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99 };

class ChartSql {
  private next = 0;
  constructor(readonly params: SqlParams) {}

  private bind(value: string | string[] | number, type: string): string {
    const name = `chart${this.next++}`;
    this.params[name] = typeof value === 'number' ? String(value) : value;
    return `{${name}:${type}}`;
  }

  /** A JSON field's guard: meta counts only where it is indexed, as search reads it. */
  private present(field: ChartField & { kind: 'json' }, test: string): string {
    return field.column === 'meta' ? `meta_indexed AND ${test}` : test;
  }

  /**
   * The field's value as text, NULL where the line has none: a JSON string as itself, another
   * JSON value as its JSON text (200, true), as search's text tests read it; an empty built-in
   * (a line without an app) has none.
   */
  text(field: ChartField): string {
    switch (field.kind) {
      case 'column':
        return `nullIf(${field.column}, '')`;
      case 'size':
        return 'toString(size)';
      case 'json': {
        const at = field.path.map((key) => this.bind(key, 'String')).join(', ');
        const type = `JSONType(${field.column}, ${at})`;
        return `if(${this.present(field, `${type} != 'Null'`)}, if(${type} = 'String', JSONExtractString(${field.column}, ${at}), JSONExtractRaw(${field.column}, ${at})), NULL)`;
      }
    }
  }

  /** The field's value as a number, NULL where it is not a JSON number (a text, a missing key). */
  number(field: ChartField): string {
    switch (field.kind) {
      case 'column':
        return 'CAST(NULL AS Nullable(Float64))'; // refused by the boards layer: text is never a number
      case 'size':
        return 'toFloat64(size)';
      case 'json': {
        const at = field.path.map((key) => this.bind(key, 'String')).join(', ');
        return `if(${this.present(field, `JSONType(${field.column}, ${at}) IN ${NUMERIC_JSON}`)}, JSONExtractFloat(${field.column}, ${at}), NULL)`;
      }
    }
  }

  /**
   * The measure of a bucket. Aggregates skip NULLs and give NULL when a bucket has no value;
   * quantileExact keeps every value and answers the one at position ⌊p·n⌋ of them sorted, so a
   * percentile is exact (docs/boards.md).
   */
  aggregate(measure: ChartQuery['measure']): string {
    const { type, field } = measure;
    if (type === 'count') return 'count()';
    if (!field) throw new Error(`chart-series: the measure ${type} needs a field`);
    if (type === 'unique') return `uniqExact(${this.text(field)})`;
    const quantile = QUANTILES[type];
    if (quantile !== undefined) return `quantileExact(${quantile})(${this.number(field)})`;
    return `${type}(${this.number(field)})`;
  }
}

/** The breakdown's most frequent values among the selected lines, ties by value, as text. */
async function topValues(executor: SqlExecutor, table: string, where: string[], baseParams: SqlParams, breakdown: NonNullable<ChartQuery['breakdown']>): Promise<string[]> {
  const params = { ...baseParams };
  const sql = new ChartSql(params);
  params.chartLimit = breakdown.limit;
  const rows = await executor.rows<{ chart_value: string }>(
    `SELECT chart_value, count() AS chart_lines
       FROM (SELECT ${sql.text(breakdown.field)} AS chart_value FROM ${table} WHERE ${where.join(' AND ')})
      WHERE chart_value IS NOT NULL
      GROUP BY chart_value ORDER BY chart_lines DESC, chart_value ASC LIMIT {chartLimit:UInt32}`,
    params,
    // A graph reads every selected line: apart, so that inserts and searches go on beside it.
    { apart: true },
  );
  return rows.map((row) => row.chart_value);
}

/**
 * A graph's values: the breakdown's top values (by lines over the whole range), then the measure
 * per bucket and series in one pass over the lines. Buckets are counted from `fromMs`, as the
 * histogram's are.
 */
export async function chartSeries(executor: SqlExecutor, table: string, selection: { where: string[]; params: SqlParams }, query: ChartQuery): Promise<ChartRows> {
  const { where } = selection;
  const values = query.breakdown ? await topValues(executor, table, where, selection.params, query.breakdown) : [];
  const params: SqlParams = { ...selection.params, chartBucketMs: query.bucketMs };
  const sql = new ChartSql(params);
  let series = '0';
  if (query.breakdown && values.length > 0) {
    const text = sql.text(query.breakdown.field);
    params.chartTops = values;
    series = `if(isNull(${text}), 0, indexOf({chartTops:Array(String)}, assumeNotNull(${text})))`;
  }
  const rows = await executor.rows<{ chart_bucket: string | number; chart_series: string | number; chart_value: string | number | null }>(
    `SELECT intDiv(toUnixTimestamp64Milli(ts) - {fromMs:Int64}, {chartBucketMs:Int64}) AS chart_bucket,
            ${series} AS chart_series,
            ${sql.aggregate(query.measure)} AS chart_value
       FROM ${table} WHERE ${where.join(' AND ')}
      GROUP BY chart_bucket, chart_series ORDER BY chart_bucket, chart_series`,
    params,
    // A graph reads every selected line: apart, so that inserts and searches go on beside it.
    { apart: true },
  );
  return {
    values,
    rows: rows.map((row) => ({ bucket: Number(row.chart_bucket), series: Number(row.chart_series), value: finite(row.chart_value) })),
  };
}

/** A value from the engine's JSON: 64-bit integers come quoted; NaN and infinities (an overflowing sum) as null. */
function finite(value: string | number | null): number | null {
  if (value === null) return null;
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
}
