import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseQuery } from '../../query/parser.js';
import { exclusionForPattern, formatShare, searchWithPattern, sparklinePoints, templateParts } from './pattern-actions.js';

const pattern = { template: 'user <*> logged in from <*>', query: '"user " "logged in from "' };

test("Search runs the pattern's query, ANDed to the current search whole", () => {
  assert.equal(searchWithPattern('', pattern), '"user " "logged in from "');
  assert.equal(searchWithPattern('  ', pattern), '"user " "logged in from "');
  // OR binds tighter than AND, but the parentheses keep the search's meaning whatever it holds.
  const narrowed = searchWithPattern('app:api OR host:web', pattern);
  assert.equal(narrowed, '(app:api OR host:web) "user " "logged in from "');
  assert.equal(parseQuery(narrowed).kind, 'and');
});

test("Exclude makes an active, index-only rule of the pattern within the search's query, apps and hosts", () => {
  assert.deepEqual(exclusionForPattern(pattern, { q: 'level:info', apps: ['api'], hosts: [] }), {
    title: 'Pattern: user <*> logged in from <*>',
    active: true,
    indexonly: true,
    apps: ['api'],
    hosts: [],
    query: '(level:info) "user " "logged in from "',
  });
  const long = exclusionForPattern({ template: 'x '.repeat(400), query: '"x"' }, { q: '', apps: [], hosts: [] });
  assert.equal(long.title.length, 200);
  assert.ok(long.title.endsWith('…'));
});

test('templates are drawn with their placeholders apart', () => {
  assert.deepEqual(templateParts('<*> took <*>ms'), [
    { text: '<*>', placeholder: true },
    { text: ' took ', placeholder: false },
    { text: '<*>', placeholder: true },
    { text: 'ms', placeholder: false },
  ]);
  assert.deepEqual(templateParts('plain'), [{ text: 'plain', placeholder: false }]);
});

test('sparklines span the box, the highest bucket at the top; shares read as percentages', () => {
  assert.equal(sparklinePoints([0, 5, 10], 100, 20), '0,20 50,10 100,0');
  assert.equal(sparklinePoints([0, 0], 10, 4), '0,4 10,4');
  assert.equal(sparklinePoints([3], 10, 4), '0,0');
  assert.equal(sparklinePoints([], 10, 4), '');
  assert.equal(formatShare(0.5), '50%');
  assert.equal(formatShare(0.0456), '4.6%');
  assert.equal(formatShare(0.0004), '<0.1%');
  assert.equal(formatShare(0), '0.0%');
});
