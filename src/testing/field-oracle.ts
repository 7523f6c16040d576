/**
 * The oracle of GET /v1/viewer/fields, counted from export records (GET /v1/export) of the same
 * search: each field's lines, its values' counts and its numbers, read from the records as an
 * independent reading of what the sidebar must answer.
 */
import assert from 'node:assert/strict';
import { searchName } from '../query/field-names.js';
import { EXPORT_RECORD_KEYS, EXTRA_RECORD_KEYS } from '../wire/export-record-keys.js';
import type { FieldsResponse } from '../wire/types.js';

/** A value's text as the oracle reads it: strings as they are, anything else as JSON writes it. */
const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** An object's leaves three levels deep, as the sidebar reads them; arrays, empty and deeper objects are values. */
function leaves(value: Record<string, unknown>, path: string[] = []): Array<[string[], unknown]> {
  return Object.entries(value).flatMap(([key, child]): Array<[string[], unknown]> => {
    const at = [...path, key];
    const object = child !== null && typeof child === 'object' && !Array.isArray(child) && Object.keys(child).length > 0;
    return object && at.length < 3 ? leaves(child as Record<string, unknown>, at) : [[at, child]];
  });
}

interface Counted {
  lines: number;
  values: Map<string, number>;
  numbers: number[];
}

/** The oracle: each field's lines, value counts and numeric values, counted from exported records. */
export function countFields(records: Array<Record<string, any>>): Map<string, Counted> {
  const counted = new Map<string, Counted>();
  const add = (name: string, values: unknown[]) => {
    const field: Counted = counted.get(name) ?? { lines: 0, values: new Map(), numbers: [] };
    counted.set(name, field);
    field.lines++;
    for (const value of values) {
      field.values.set(text(value), (field.values.get(text(value)) ?? 0) + 1);
      if (typeof value === 'number') field.numbers.push(value);
    }
  };
  for (const record of records) {
    for (const [name, value] of [['host', record._host], ['app', record._app], ['level', record.level], ['file', record._file], ['env', record.env]] as const) {
      if (value) add(name, [value]);
    }
    if (record.tags?.length) add('tag', record.tags);
    const stored = Object.fromEntries(Object.entries(record).filter(([key]) => !EXPORT_RECORD_KEYS.includes(key) && !EXTRA_RECORD_KEYS.includes(key)));
    for (const [path, value] of leaves(stored)) {
      const name = searchName('fields', path);
      if (name) add(name, [value]);
    }
    if (!record._metaUnindexed && record.meta && typeof record.meta === 'object') {
      for (const [path, value] of leaves(record.meta)) add(searchName('meta', path)!, [value]);
    }
  }
  return counted;
}

/** The nearest-rank percentile: the smallest value at least q of the values are at most. */
const percentile = (sorted: number[], q: number) => sorted[Math.max(0, Math.ceil(sorted.length * q) - 1)];

export function assertFieldsAgree(answer: FieldsResponse, records: Array<Record<string, any>>, top: number, what = '') {
  const oracle = countFields(records);
  assert.equal(answer.lines, records.length, `${what}lines matched`);
  assert.deepEqual(answer.fields.map((field) => field.name).sort(), [...oracle.keys()].sort(), `${what}every field the lines carry, and no other`);
  for (const field of answer.fields) {
    const expected = oracle.get(field.name)!;
    assert.equal(field.lines, expected.lines, `${what}${field.name}: lines`);
    const ranked = [...expected.values].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    assert.deepEqual(field.top.map((value) => value.lines), ranked.slice(0, top).map(([, lines]) => lines), `${what}${field.name}: the top counts`);
    for (const value of field.top) assert.equal(value.lines, expected.values.get(value.value), `${what}${field.name}:${value.value}`);
    const numeric = expected.numbers.length * 2 > expected.lines - (expected.values.get('null') ?? 0);
    if (field.type === 'number' || numeric) {
      assert.equal(field.type, numeric ? 'number' : field.type, `${what}${field.name}: type`);
      const sorted = [...expected.numbers].sort((a, b) => a - b);
      const stats = field.stats!;
      assert.deepEqual([stats.min, stats.max, stats.p50, stats.p95, stats.p99], [sorted[0], sorted.at(-1), percentile(sorted, 0.5), percentile(sorted, 0.95), percentile(sorted, 0.99)], `${what}${field.name}: stats`);
      assert.ok(Math.abs(stats.avg - sorted.reduce((sum, n) => sum + n, 0) / sorted.length) < 1e-9, `${what}${field.name}: avg`);
    } else {
      assert.equal(field.stats, undefined, `${what}${field.name}: no stats`);
    }
  }
}

