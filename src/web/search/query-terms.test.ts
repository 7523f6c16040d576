import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { filterTerm, queryTerms, quote, withFilter } from './query-terms.js';

const marks = (query: string, text: string) => [...text.matchAll(queryTerms(query).pattern ?? /$^/g)].map((match) => match[0]);

describe('what a query marks and names', () => {
  test('words mark as case-insensitive prefixes at a word start; phrases whole, longest first', () => {
    assert.deepEqual(marks('pay', 'Payment repaid PAYMENT'), ['Pay', 'PAY']);
    assert.deepEqual(marks('payment "card declined"', 'payment 9 failed: card declined'), ['payment', 'card declined']);
    assert.deepEqual(marks('card "card declined"', 'card declined'), ['card declined']);
  });

  test('negated words and fields mark nothing; exact modes keep case and whole words', () => {
    assert.equal(queryTerms('-captured').pattern, null);
    assert.equal(queryTerms('app:billing').pattern, null);
    assert.deepEqual(marks('PAY -failed', 'pay failed'), ['pay']);
    assert.deepEqual(marks('===Error', 'Error error Errors'), ['Error']);
  });

  test('field names as written, and words holding a *', () => {
    const { fields, wildcards } = queryTerms('host:web-1 -meta.user.id:3 (tags:prod OR status:500) fail* _mezmo_line_size:>10');
    // A JSON path is named as the search stores it, with a leading _ (status is _status).
    assert.deepEqual(fields.sort(), ['_mezmo_line_size', '_status', 'host', 'meta.user.id', 'tags']);
    assert.deepEqual(wildcards, ['fail*']);
  });

  test('a query that does not parse gives nothing rather than throwing', () => {
    assert.deepEqual(queryTerms('app:billing (level:error'), { pattern: null, fields: [], wildcards: [] });
  });

  test('a value as a term: bare when it reads back the same, quoted otherwise', () => {
    assert.equal(quote('web-1'), 'web-1');
    assert.equal(quote('acme corp'), '"acme corp"');
    assert.equal(quote('<none>'), '"<none>"');
    assert.equal(quote('-1'), '"-1"');
    assert.equal(quote('OR'), '"OR"');
    assert.equal(quote('say "hi"\\'), '"say \\"hi\\"\\\\"');
    assert.equal(filterTerm('meta.customer', 'acme corp'), 'meta.customer:"acme corp"');
    assert.equal(filterTerm('region', 'eu', true), '-region:eu');
  });

  test('filter-out replaces the same filter-for term with its negation, and filter-for the reverse', () => {
    assert.equal(withFilter('status:404', 'status', '404', true), '-status:404');
    assert.equal(withFilter('app:web status:404 slow', 'status', '404', true), 'app:web -status:404 slow');
    assert.equal(withFilter('-status:404', 'status', '404'), 'status:404');
    assert.equal(withFilter('app:web NOT status:404', 'status', '404'), 'app:web status:404');
    assert.equal(withFilter('meta.customer:"acme corp"', 'meta.customer', 'acme corp', true), '-meta.customer:"acme corp"');
  });

  test('a filter already in the query is not added twice; others are added after it', () => {
    assert.equal(withFilter('status:404', 'status', '404'), 'status:404');
    assert.equal(withFilter('-status:404', 'status', '404', true), '-status:404');
    assert.equal(withFilter('', 'status', '404'), 'status:404');
    assert.equal(withFilter('status:404', 'status', '500', true), 'status:404 -status:500');
  });

  test('a term inside an OR or a group is left as written, as replacing it would change the other terms', () => {
    assert.equal(withFilter('status:404 OR status:500', 'status', '404', true), 'status:404 OR status:500 -status:404');
    assert.equal(withFilter('(status:404 slow)', 'status', '404', true), '(status:404 slow) -status:404');
    assert.equal(withFilter('"status:404"', 'status', '404', true), '"status:404" -status:404');
  });
});
