import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bucketAt, bucketsFor, dragRange, emptyChartText, formatValue, linePath, measureLabel, niceTop, seriesColour, OTHER_COLOUR } from './chart-scale.js';

const HOUR = 3_600_000;

describe("a line chart's scales", () => {
  test('a range is cut into round buckets, at most 60: a day by the hour, an hour by the minute', () => {
    assert.equal(bucketsFor(0, 24 * HOUR), 24);
    assert.equal(bucketsFor(0, 12 * HOUR), 48);
    assert.equal(bucketsFor(0, HOUR), 60);
    assert.equal(bucketsFor(0, 15 * 60_000), 15);
    assert.equal(bucketsFor(0, 7 * 24 * HOUR), 56);
    assert.equal(bucketsFor(0, 10 * HOUR), 60);
    assert.equal(bucketsFor(0, 40 * HOUR), 40);
    assert.equal(bucketsFor(5, 5), 1);
  });

  test('the value axis tops at 1, 2 or 5 times a power of ten, for fractions as for counts', () => {
    assert.deepEqual([1, 3, 7, 12, 180, 501, 1000].map(niceTop), [1, 5, 10, 20, 200, 1000, 1000]);
    assert.deepEqual([0.123, 0.02, 0.0071].map(niceTop), [0.2, 0.02, 0.01]);
    assert.equal(niceTop(0), 1);
    assert.equal(niceTop(Number.NaN), 1);
  });

  test('values read as whole numbers grouped, fractions to three significant digits, and a missing one as a dash', () => {
    assert.equal(formatValue(1234567), '1,234,567');
    assert.equal(formatValue(0.123456), '0.123');
    assert.equal(formatValue(12.3456), '12.3');
    assert.equal(formatValue(1234.56), '1,235');
    assert.equal(formatValue(null), '—');
  });

  test("a series' path breaks where a bucket has no value, rather than falling to zero", () => {
    const points: Array<[number, number | null]> = [
      [0, 1],
      [1, 2],
      [2, null],
      [3, 4],
      [4, 0],
    ];
    assert.equal(linePath(points, (ts) => ts * 10, (value) => 100 - value), 'M0.0,99.0L10.0,98.0M30.0,96.0L40.0,100.0');
    assert.equal(linePath([[0, null]], (ts) => ts, (value) => value), '');
  });

  test('a pixel falls in the bucket whose slot holds it, clamped to the ends', () => {
    assert.equal(bucketAt(0, 600, 24), 0);
    assert.equal(bucketAt(24.9, 600, 24), 0);
    assert.equal(bucketAt(25, 600, 24), 1);
    assert.equal(bucketAt(599, 600, 24), 23);
    assert.equal(bucketAt(-40, 600, 24), 0);
    assert.equal(bucketAt(900, 600, 24), 23);
  });

  test("a drag zooms from the first bucket's start to the last one's end, either way; a click is no zoom", () => {
    const starts = [0, HOUR, 2 * HOUR, 3 * HOUR];
    assert.deepEqual(dragRange(starts, 1, 2, HOUR), { from: HOUR, to: 3 * HOUR - 1 });
    assert.deepEqual(dragRange(starts, 3, 0, HOUR), { from: 0, to: 4 * HOUR - 1 });
    assert.equal(dragRange(starts, 2, 2, HOUR), null);
  });

  test('series take distinct colours in order, and `other` grey', () => {
    assert.notEqual(seriesColour(0), seriesColour(1));
    assert.equal(seriesColour(3, true), OTHER_COLOUR);
  });

  test('a measure in words', () => {
    assert.equal(measureLabel({ type: 'count' }), 'lines');
    assert.equal(measureLabel({ type: 'p95', field: 'duration' }), 'p95 of duration');
    assert.equal(measureLabel({ type: 'avg', field: 'size' }), 'average of size');
  });

  test('a chart with no lines in its range says so, in words that name nothing beyond its answer', () => {
    const chart = (...series: Array<Array<number | null>>) => ({ from: 0, to: 2, interval: 1, series: series.map((values, index) => ({ name: `s${index}`, points: values.map((value, at): [number, number | null] => [at, value]) })) });
    assert.equal(emptyChartText(chart([0, 0]), { type: 'count' }), 'No lines in this range');
    assert.equal(emptyChartText(chart(), { type: 'count' }), 'No lines in this range', 'a breakdown with no values has no series');
    assert.equal(emptyChartText(chart([0, 3]), { type: 'count' }), '');
    assert.equal(emptyChartText(chart([null, null]), { type: 'p95', field: 'duration' }), 'No lines with duration in this range');
    assert.equal(emptyChartText(chart([null, 0]), { type: 'sum', field: 'bytes' }), '', 'a sum of 0 is a value');
  });
});
