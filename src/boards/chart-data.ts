import type { AccessScope } from '../query/access-scope.js';
import { compileQuery } from '../query/compile.js';
import type { LogStore } from '../store/log-store.js';
import type { ChartData, ChartSeries, GraphSpec } from '../wire/types.js';
import { chartField } from './graph.js';

/** The name of the series of the lines outside a breakdown's top values. */
export const OTHER_SERIES = 'other';

export interface ChartRange {
  fromMs: number;
  toMs: number;
  /** How many buckets were asked for; fewer when the range is shorter than that many ms. */
  buckets: number;
}

/**
 * A graph's series over a range, from the lines the reader may see: the graph's search is held
 * inside the reader's access scope, as every read is, so a scoped member's series (and the values
 * a breakdown names) come only from lines inside their scope. Buckets follow GET /v1/histogram:
 * each is the range over the buckets asked for, rounded up to a whole ms, and none starts after
 * `to`. A bucket without lines is 0 for a count and null for every other measure.
 */
export async function chartData(store: LogStore, account: string, scope: AccessScope, graph: GraphSpec, range: ChartRange): Promise<ChartData> {
  const spanMs = range.toMs - range.fromMs + 1;
  const bucketMs = Math.max(1, Math.ceil(spanMs / range.buckets));
  const count = Math.ceil(spanMs / bucketMs);
  const listed = (values: string[]) => (values.length ? values : undefined);
  const filter = {
    account,
    fromMs: range.fromMs,
    toMs: range.toMs,
    apps: listed(graph.apps),
    hosts: listed(graph.hosts),
    levels: listed(graph.levels.map((level) => level.toUpperCase())),
    tags: listed(graph.tags),
    condition: compileQuery(graph.query, scope),
  };
  const { values, rows } = await store.chartSeries(filter, {
    bucketMs,
    measure: { type: graph.measure.type, field: graph.measure.field === undefined ? undefined : chartField(graph.measure.field) },
    breakdown: graph.breakdown && { field: chartField(graph.breakdown.field), limit: graph.breakdown.limit },
  });
  const empty = graph.measure.type === 'count' ? 0 : null;
  const line = (name: string): ChartSeries => ({ name, points: Array.from({ length: count }, (_, at) => [range.fromMs + at * bucketMs, empty]) });
  const series = graph.breakdown ? values.map(line) : [line(graph.title)];
  let other: ChartSeries | undefined;
  for (const row of rows) {
    if (row.bucket < 0 || row.bucket >= count) continue; // not reachable: the selection keeps to the range
    let target: ChartSeries;
    if (!graph.breakdown) target = series[0];
    else if (row.series > 0) target = series[row.series - 1];
    else target = other ??= { ...line(OTHER_SERIES), other: true };
    target.points[row.bucket][1] = row.value;
  }
  return { from: range.fromMs, to: range.toMs, interval: bucketMs, series: other ? [...series, other] : series };
}
