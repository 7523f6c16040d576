import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countProblem, countQuery, locate, namesOf, namesText, saveProblem, scopeLines, scopeText, scopeValue } from './scope.js';

test('a stored scope shows one search per line, and is sent back in the shape clients use', () => {
  assert.equal(scopeText('app:billing'), 'app:billing');
  assert.equal(scopeText(['app:billing', 'host:web-1']), 'app:billing\nhost:web-1');
  assert.equal(scopeText(null), '');
  assert.deepEqual(scopeLines(' app:a \n\n  \nhost:b'), ['app:a', 'host:b']);
  assert.equal(scopeValue(''), '');
  assert.equal(scopeValue('  app:billing \n'), 'app:billing', 'one search is sent as a string');
  assert.deepEqual(scopeValue('app:a\nhost:b'), ['app:a', 'host:b']);
});

test('several searches are counted as one, each in parentheses, any of them letting a line through', () => {
  assert.deepEqual(countQuery(''), { query: '', starts: [0] });
  assert.deepEqual(countQuery('app:billing level:error'), { query: 'app:billing level:error', starts: [0] });
  const { query, starts } = countQuery('app:a\nhost:b (x');
  assert.equal(query, '(app:a) OR (host:b (x)');
  assert.deepEqual(starts, [1, 12]);
  assert.equal(query.slice(starts[1], starts[1] + 6), 'host:b');
});

test("a position in the counted query is placed in the scope's own line", () => {
  const { query, starts } = countQuery('app:a\nhost:b (x');
  assert.deepEqual(locate(query.indexOf('(x'), starts), { line: 1, position: 7 });
  assert.deepEqual(locate(3, [0]), { line: 0, position: 3 });
  assert.deepEqual(countProblem({ error: 'Invalid query at position 19', position: 19 }, starts), { message: 'Invalid query at position 19', line: 1, position: 7 });
  assert.deepEqual(countProblem({ error: 'Bad or missing parameters.' }, starts), { message: 'Bad or missing parameters.' });
});

test("a refused save names the search and the position the server's message gives", () => {
  const one = '"access_scopes" is not a valid search: Invalid query at position 12: expected ")" to close the group opened at position 4, found the end of the query.';
  assert.deepEqual(saveProblem({ error: one, details: [{ message: one, key: 'access_scopes', field: 'Access scope' }] }), { message: one, line: 0, position: 12 });
  const second = '"access_scopes[1]" is not a valid search: Invalid query at position 3: expected a value, found the end of the query.';
  assert.deepEqual(saveProblem({ error: second, details: [{ message: second, key: 'access_scopes[1]', field: 'Access scope' }] }), { message: second, line: 1, position: 3 });
  const name = '"name" is not allowed to be empty';
  assert.deepEqual(saveProblem({ error: name, details: [{ message: name, key: 'name', field: 'Name' }] }), { message: name });
  assert.deepEqual(saveProblem({ error: 'A group with this name exists' }), { message: 'A group with this name exists' });
});

test("a group's exact names are typed separated by commas or lines, and shown back the same way", () => {
  assert.deepEqual(namesOf(' checkout, checkout-api \n\nweb-1,,checkout '), ['checkout', 'checkout-api', 'web-1']);
  assert.deepEqual(namesOf(''), []);
  assert.equal(namesText(['checkout', 'web-1']), 'checkout, web-1');
  assert.equal(namesText(undefined), '');
});
