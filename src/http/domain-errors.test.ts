import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BadInputError, MissingHostnameError, OverloadedError } from '../lib/ingest-errors.js';
import { QueryParseError, parseQuery } from '../query/parser.js';
import { apiErrorForDomain } from './domain-errors.js';
import { errors } from './errors.js';

const thrown = (run: () => unknown): unknown => {
  try {
    run();
  } catch (error) {
    return error;
  }
  assert.fail('expected a throw');
};

test('each domain error is answered with its catalogued status, body and headers', () => {
  const cases: Array<[unknown, ReturnType<(typeof errors)[keyof typeof errors]>]> = [
    [new BadInputError('a tag is too long'), errors.badRequest()],
    [new MissingHostnameError(), errors.missingHostname()],
    [new OverloadedError(1000), errors.overloaded()],
  ];
  for (const [error, expected] of cases) {
    const answer = apiErrorForDomain(error)!;
    assert.equal(answer.statusCode, expected.statusCode);
    assert.deepEqual(answer.body, expected.body);
    assert.deepEqual(answer.headers, expected.headers);
  }
});

test('a query that does not parse is answered with where and what was expected', () => {
  const error = thrown(() => parseQuery('app:'));
  assert.ok(error instanceof QueryParseError);
  const answer = apiErrorForDomain(error)!;
  assert.equal(answer.statusCode, 400);
  assert.deepEqual(answer.body, errors.invalidQuery(error.message, error.position, error.expected).body);
  assert.equal(answer.body.position, error.position);
});

test('other errors are left to the caller', () => {
  assert.equal(apiErrorForDomain(new Error('disk full')), undefined);
  assert.equal(apiErrorForDomain('text'), undefined);
});
