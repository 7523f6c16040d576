import type { ChartData, GraphMeasure } from '../api-client/client.js';

/** A line chart's scales and shapes, apart from drawing it: the boards' graphs and "chart this" use them. */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** Bucket lengths a graph is cut into: round ones, so that a day is 24 points of an hour each. */
const BUCKET_STEPS = [MINUTE, 5 * MINUTE, 10 * MINUTE, 15 * MINUTE, HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, 24 * HOUR];
/** About as many points as a graph a few hundred pixels wide shows clearly. */
const MOST_BUCKETS = 60;

/** How many buckets to ask for over a range: the smallest round length that gives at most 60 of them. */
export function bucketsFor(from: number, to: number): number {
  const span = Math.max(1, to - from);
  const step = BUCKET_STEPS.find((candidate) => span / candidate <= MOST_BUCKETS) ?? BUCKET_STEPS[BUCKET_STEPS.length - 1];
  return Math.max(1, Math.min(1000, Math.ceil(span / step)));
}

/** A round top for the value axis, 1, 2 or 5 times a power of ten, for fractions (seconds, ratios) as for counts. */
export function niceTop(max: number): number {
  if (!(max > 0) || !Number.isFinite(max)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  return [1, 2, 5, 10].map((n) => n * power).find((n) => n >= max * (1 - 1e-12)) ?? max;
}

/** A value as an axis or a tooltip shows it: whole numbers grouped, fractions to three significant digits. */
export function formatValue(value: number | null): string {
  if (value === null) return '—';
  if (Number.isInteger(value)) return value.toLocaleString('en');
  // Three significant digits, but never fewer than the digits before the point.
  const whole = Math.floor(Math.log10(Math.abs(value))) + 1;
  return Number(value.toPrecision(Math.min(21, Math.max(3, whole)))).toLocaleString('en', { maximumFractionDigits: 6 });
}

/**
 * The SVG path of a series: one stroke through its points, broken where a bucket has no value
 * (null: no line had the field there), so a gap is not drawn as a fall to zero.
 */
export function linePath(points: Array<[number, number | null]>, xOf: (ts: number) => number, yOf: (value: number) => number): string {
  let path = '';
  let drawing = false;
  for (const [ts, value] of points) {
    if (value === null) {
      drawing = false;
      continue;
    }
    path += `${drawing ? 'L' : 'M'}${xOf(ts).toFixed(1)},${yOf(value).toFixed(1)}`;
    drawing = true;
  }
  return path;
}

/** The bucket under a pixel of the plot, where each bucket takes an equal width (clamped to the first and the last). */
export function bucketAt(x: number, plot: number, buckets: number): number {
  return Math.min(buckets - 1, Math.max(0, Math.floor((x / Math.max(1, plot)) * buckets)));
}

/** The range that a drag from one bucket to another zooms to: from the first's start to the end of the last. */
export function dragRange(starts: number[], a: number, b: number, interval: number): { from: number; to: number } | null {
  const [first, last] = [Math.min(a, b), Math.max(a, b)];
  if (first === last || starts[first] === undefined || starts[last] === undefined) return null;
  return { from: starts[first], to: starts[last] + interval - 1 };
}

/** Colours for series in order, distinct in both themes; `other` takes grey. */
const PALETTE = ['#2e90fa', '#f79009', '#12b76a', '#d92d20', '#7a5af8', '#ee46bc', '#0e9384', '#875bf7', '#dc6803', '#6172f3'];
export const OTHER_COLOUR = '#98a2b3';
export const seriesColour = (index: number, other = false): string => (other ? OTHER_COLOUR : PALETTE[index % PALETTE.length]);

/** A measure in words: "lines", "p95 of duration", "unique customer". */
export function measureLabel(measure: GraphMeasure): string {
  if (measure.type === 'count') return 'lines';
  const names: Record<string, string> = { sum: 'sum', avg: 'average', min: 'min', max: 'max', unique: 'unique', p50: 'p50', p90: 'p90', p95: 'p95', p99: 'p99' };
  return `${names[measure.type]} of ${measure.field ?? '?'}`;
}

/**
 * What a chart with nothing to draw says instead of bare axes, or '' when it has something. A count
 * is 0 where no line is; another measure is null where no line has its field. Worked out from the
 * answer alone, so a scoped member learns nothing beyond their scope.
 */
export function emptyChartText(data: ChartData, measure: GraphMeasure): string {
  const points = data.series.flatMap((series) => series.points.map(([, value]) => value));
  const counted = measure.type === 'count';
  if (points.some((value) => value !== null && !(counted && value === 0))) return '';
  return counted || !measure.field ? 'No lines in this range' : `No lines with ${measure.field} in this range`;
}

