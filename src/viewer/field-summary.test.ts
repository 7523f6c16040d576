import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoredField } from '../store/field-stats.js';
import { fieldType, summarizeFields } from './field-summary.js';

const field = (change: Partial<StoredField>): StoredField => ({ source: 'fields', path: ['x'], lines: 10, numbers: 0, booleans: 0, nulls: 0, top: [], stats: null, ...change });
const stats = { min: 1, max: 9, avg: 5, p50: 5, p95: 9, p99: 9 };

test('a field is the type most of its valued lines hold; a tie is text; nulls hold none', () => {
  assert.equal(fieldType(field({ numbers: 10 })), 'number');
  assert.equal(fieldType(field({ numbers: 6 })), 'number', 'mostly numbers');
  assert.equal(fieldType(field({ numbers: 5 })), 'string', 'a tie');
  assert.equal(fieldType(field({ numbers: 4, nulls: 4 })), 'number', 'four of six valued lines');
  assert.equal(fieldType(field({ booleans: 7 })), 'boolean');
  assert.equal(fieldType(field({ numbers: 4, booleans: 4 })), 'string');
});

test('fields are named for search, built-ins first; values read as search takes them, the number and the text 200 as one', () => {
  const answer = summarizeFields(
    {
      lines: 12,
      fields: [
        field({ source: 'meta', path: ['customer'], lines: 3, top: [{ raw: '"acme"', lines: 3 }] }),
        field({ path: ['_status'], lines: 12, numbers: 11, top: [{ raw: '200', lines: 8 }, { raw: '500', lines: 3 }, { raw: '"200"', lines: 1 }], stats }),
        field({ path: ['host'], lines: 12, top: [{ raw: '"shadowed"', lines: 12 }] }),
        field({ path: ['a.b'], lines: 12, top: [] }),
        field({ source: 'builtin', path: ['level'], lines: 12, top: [{ raw: 'INFO', lines: 12 }] }),
        field({ source: 'builtin', path: ['host'], lines: 12, top: [{ raw: 'web-1', lines: 12 }] }),
        field({ path: ['flag'], lines: 2, booleans: 2, top: [{ raw: 'true', lines: 2 }] }),
      ],
    },
    5,
  );
  assert.deepEqual(answer, {
    lines: 12,
    fields: [
      { name: 'host', type: 'string', lines: 12, top: [{ value: 'web-1', lines: 12 }] },
      { name: 'level', type: 'string', lines: 12, top: [{ value: 'INFO', lines: 12 }] },
      { name: 'status', type: 'number', lines: 12, top: [{ value: '200', lines: 9 }, { value: '500', lines: 3 }], stats },
      { name: 'meta.customer', type: 'string', lines: 3, top: [{ value: 'acme', lines: 3 }] },
      { name: 'flag', type: 'boolean', lines: 2, top: [{ value: 'true', lines: 2 }] },
    ],
  });
});
