import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RE2JS } from 're2js';
import { compileQuery } from '../../query/compile.js';
import { parseQuery } from '../../query/parser.js';
import { toPredicate } from '../../query/to-predicate.js';
import type { SearchableLine } from '../../query/searchable.js';
import { templateFitPattern, templateId, templateNeedle, templateQuery } from './template-text.js';

const line = (text: string): SearchableLine => ({ line: text, host: 'h', app: 'a', level: '', file: '', env: '', tags: [], meta: '', meta_indexed: true, fields: '', size: text.length });

test('the query is the constant pieces as phrases, each starting where a word can start', () => {
  assert.equal(templateQuery('GET /api/users/<*> took <*>'), '"GET /api/users/" "took "');
  assert.equal(templateQuery('<*> worker <*> finished job=<*> in <*>'), '"worker " "finished job=" "in "');
  // After a placeholder, the piece is searched from past its first non-word character.
  assert.equal(templateQuery('req-<*>ms done'), '"req-" "done"');
  assert.equal(templateQuery('user=<*> said <*>'), '"user=" "said "');
  assert.equal(templateQuery('say "hi" to <*>\\ok'), '"say \\"hi\\" to " "ok"');
});

test('a template with no constant word has an empty query, which the viewer does not offer', () => {
  assert.equal(templateQuery('<*> <*>'), '');
  assert.equal(templateQuery('<*> - <*>'), '');
});

test("the query parses and finds every line the template stands for, in the live matcher's twin", () => {
  const cases: Array<[string, string[]]> = [
    ['GET /api/users/<*> took <*>', ['GET /api/users/42 took 12ms', 'get /api/users/abc took 1.5s']],
    ['<*> worker <*> finished job=<*> in <*>', ['10:00:01 worker w3 finished job=x-1 in 3s', 'x worker a finished job=<*> in 1m']],
    ['req-<*>ms done', ['req-12ms done']],
    ['user=<*> said <*>', ['user="bob smith" said hello', 'user=eve said bye']],
    ['say "hi" to <*>\\ok', ['say "hi" to bob\\ok']],
  ];
  for (const [template, lines] of cases) {
    const query = templateQuery(template);
    const matches = toPredicate(parseQuery(query));
    assert.ok(compileQuery(query, null), query);
    for (const text of lines) assert.ok(matches(line(text)), `${query} should find ${text}`);
    assert.ok(!matches(line('something else entirely')), `${query} should not find everything`);
  }
});

test('the query keeps the longest phrases within its limits', () => {
  const template = Array.from({ length: 40 }, (_, i) => `word${'x'.repeat(i % 5)}${i}`).join(' <*> ');
  const query = templateQuery(template);
  assert.ok(query.length < 10_000);
  assert.equal(query.match(/"/g)?.length, 24);
  assert.ok(toPredicate(parseQuery(query))(line(template.replaceAll('<*>', 'v'))));
});

test('the fit pattern takes any token for each placeholder, and nothing else', () => {
  // The engine runs the pattern with RE2; re2js is the same syntax.
  const pattern = RE2JS.compile(templateFitPattern('GET /a.b <*> took <*> user=<*>'));
  const fit = { test: (text: string) => pattern.matcher(text).find() };
  assert.ok(fit.test('GET /a.b <*> took <*> user=<*>'));
  assert.ok(fit.test('GET /a.b x took 3 user=bob'));
  assert.ok(!fit.test('GET /aXb x took 3 user=bob'));
  assert.ok(!fit.test('GET /a.b x y took 3 user=bob'));
  assert.ok(!fit.test('GET /a.b x took 3 user=bob extra'));
});

test('ids are stable per template and differ between templates', () => {
  assert.equal(templateId('a <*> b'), templateId('a <*> b'));
  assert.notEqual(templateId('a <*> b'), templateId('a <*> c'));
  assert.match(templateId('x'), /^[0-9a-f]{16}$/);
});

test('a template\'s needle is its longest constant text touching no placeholder, held by every line it fits', () => {
  assert.equal(templateNeedle('GET /api/users/<*> took <*>'), 'GET /api/users/');
  assert.equal(templateNeedle('user=<*> logged in from <*>'), ' logged in from ');
  // `<`, `*` and `>` of the template's own text are left out: a masked text's `<*>` is no line's text.
  assert.equal(templateNeedle('a<b <*> c'), 'b ');
  assert.equal(templateNeedle('<*> <*>'), ' ');
  assert.equal(templateNeedle('<*>'), undefined);
  // Every raw line whose masked text fits holds it.
  const line = 'user="bob smith" logged in from 10.0.0.1:80';
  const masked = 'user=<*> logged in from <*>';
  const pattern = RE2JS.compile(templateFitPattern('user=<*> logged in from <*>'));
  assert.ok(pattern.matcher(masked).find());
  assert.ok(line.includes(templateNeedle('user=<*> logged in from <*>')!));
});
