import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../api-client/client.js';
import { themeOf } from './useTheme.js';
import { signInProblem } from './sign-in.js';

test('a refused key is named as such; any other failure says what happened', () => {
  assert.equal(signInProblem(new ApiError(401, { error: 'unauthorised' })), 'That is not a service key of an active organisation.');
  assert.equal(signInProblem(new ApiError(429, { error: 'Too many sign-in attempts' })), 'Too many sign-in attempts');
  assert.equal(signInProblem(new TypeError('Failed to fetch')), 'Failed to fetch');
});

test('a stored theme counts only when it is one', () => {
  assert.equal(themeOf('dark'), 'dark');
  assert.equal(themeOf('light'), 'light');
  assert.equal(themeOf(null), null);
  assert.equal(themeOf('blue'), null);
});
