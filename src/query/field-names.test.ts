import assert from 'node:assert/strict';
import { test } from 'node:test';
import { searchName } from './field-names.js';
import { resolveField } from './parser.js';

test('a stored field is named as search finds it: reserved roots without their underscore, meta under meta.', () => {
  assert.equal(searchName('fields', ['_status']), 'status');
  assert.equal(searchName('fields', ['_user', 'id']), 'user.id');
  assert.equal(searchName('fields', ['duration_ms']), 'duration_ms');
  assert.equal(searchName('fields', ['_private']), '_private', 'an underscore that is no reserved rename stays');
  assert.equal(searchName('meta', ['customer', 'id']), 'meta.customer.id');
  for (const [source, path] of [['fields', ['_status']], ['fields', ['_user', 'id']], ['meta', ['customer', 'id']]] as const) {
    const field = resolveField(searchName(source, path)!);
    assert.deepEqual(field, { kind: source === 'meta' ? 'meta' : 'json', path }, 'the name resolves back to the stored path');
  }
});

test('a field no name reaches has none: built-in names shadow JSON keys, odd characters and dots cannot be written', () => {
  assert.equal(searchName('fields', ['_tag']), '_tag', '`tag` is the built-in tag; the stored name still reaches it');
  assert.equal(searchName('fields', ['host']), null);
  assert.equal(searchName('fields', ['size']), null);
  assert.equal(searchName('fields', ['meta', 'x']), null, 'meta.x searches the meta column');
  assert.equal(searchName('fields', ['a b']), null);
  assert.equal(searchName('fields', ['a.b']), null);
  assert.equal(searchName('fields', []), null);
});
