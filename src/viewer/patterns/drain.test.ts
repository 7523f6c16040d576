import assert from 'node:assert/strict';
import { test } from 'node:test';
import { drain, widen } from './drain.js';

const templates = (texts: string[]) => drain(texts).map((cluster) => ({ template: cluster.tokens.join(' '), members: cluster.members }));

test('texts of one shape join one cluster, the tokens where they differ becoming <*>', () => {
  const found = templates(['user bob logged in', 'user eve logged in', 'user ann logged out', 'disk <*> full']);
  assert.deepEqual(found, [
    { template: 'user <*> logged <*>', members: [0, 1, 2] },
    { template: 'disk <*> full', members: [3] },
  ]);
});

test('texts of different lengths or first tokens are never compared', () => {
  const found = templates(['GET /a 200', 'PUT /a 200', 'GET /a 200 slow']);
  assert.deepEqual(found.map((cluster) => cluster.template), ['GET /a 200', 'PUT /a 200', 'GET /a 200 slow']);
});

test('a text too unlike every cluster of its leaf starts its own (similarity under 0.4)', () => {
  const found = templates(['connection reset by peer now', 'connection refused to host here']);
  // Only `connection` is shared: 1 of 5 tokens.
  assert.equal(found.length, 2);
  const similar = templates(['cache hit for key a', 'cache hit for key b']);
  assert.deepEqual(similar.map((cluster) => cluster.template), ['cache hit for key <*>']);
});

test('a key=value token widens to key=<*>, keeping the key a search needs', () => {
  assert.equal(widen('user=bob', 'user=eve'), 'user=<*>');
  assert.equal(widen('user=<*>', 'user=eve'), 'user=<*>');
  assert.equal(widen('user=bob', 'name=eve'), '<*>');
  assert.equal(widen('bob', 'eve'), '<*>');
  const found = templates(['login ok user=bob ip=<*>', 'login ok user=eve ip=<*>', 'login ok user=ann ip=<*>']);
  assert.deepEqual(found.map((cluster) => cluster.template), ['login ok user=<*> ip=<*>']);
});

test('tokens with digits or placeholders route through the <*> branch, so they still meet', () => {
  const found = templates(['<*> GET /health ok', 'a1 GET /health ok', '<*> GET /ready ok']);
  assert.deepEqual(found.map((cluster) => cluster.template), ['<*> GET <*> ok']);
});

test('spacing is part of the shape: a double space is an empty token', () => {
  const found = templates(['a  b', 'a b']);
  assert.equal(found.length, 2);
  assert.deepEqual(found[0].template, 'a  b');
});

test('the same texts in the same order give the same clusters; the caller fixes the order', () => {
  const texts = Array.from({ length: 200 }, (_, i) => `job ${['sync', 'push', 'pull'][i % 3]} step=${i % 7} took <*> for tenant-${i % 11}`);
  assert.deepEqual(drain(texts), drain([...texts]));
  // Sorted (as the store sorts its groups), a shuffled input gives the same templates.
  const shuffled = [...texts].sort((a, b) => (a.length * 31 + a.charCodeAt(5)) % 17 - ((b.length * 31 + b.charCodeAt(5)) % 17));
  const sortedTemplates = (input: string[]) => drain([...input].sort()).map((cluster) => cluster.tokens.join(' ')).sort();
  assert.deepEqual(sortedTemplates(shuffled), sortedTemplates(texts));
});

test('past maxChildren, new first tokens share the <*> child', () => {
  const texts = Array.from({ length: 5 }, (_, i) => `word${String.fromCharCode(97 + i)} went away`);
  const wide = drain(texts, { similarity: 0.4, prefixDepth: 1, maxChildren: 100 });
  assert.equal(wide.length, 5);
  const narrow = drain(texts.map((text) => text.replace(/\d/g, '')), { similarity: 0.4, prefixDepth: 1, maxChildren: 2 });
  // worda and wordb get children; the other three meet under <*> and share `went away`.
  assert.deepEqual(narrow.map((cluster) => cluster.tokens.join(' ')), ['worda went away', 'wordb went away', '<*> went away']);
});
