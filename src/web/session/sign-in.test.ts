import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../api-client/client.js';
import { themeOf } from './useTheme.js';
import { signInProblem, waitText } from './sign-in.js';
import { GIVEN_ROLES, mayAdminister, mayEdit, signedInAs } from './roles.js';

test('refused credentials are named for the way used; any other failure says what happened', () => {
  assert.equal(signInProblem(new ApiError(401, { error: 'unauthorised' })), 'That is not a service key of an active organisation.');
  assert.equal(signInProblem(new ApiError(401, { error: 'Wrong e-mail or password.' }), 'password'), 'Wrong e-mail or password.');
  const off = 'Signing in with a service key is turned off here (LOGSTEAD_KEY_SIGN_IN=false); sign in with your e-mail and password, or single sign-on.';
  assert.equal(signInProblem(new ApiError(403, { error: off }), 'key'), off);
  assert.equal(signInProblem(new TypeError('Failed to fetch'), 'password'), 'The server could not be reached (Failed to fetch).');
});

test('a sign-in limit says how long to wait, in words', () => {
  assert.equal(signInProblem(new ApiError(429, { error: 'Too many failed sign-ins; retry in 42 s.', retryAfter: 42 }), 'password'), 'Too many failed sign-ins from here. Try again in 42 seconds.');
  assert.equal(signInProblem(new ApiError(429, { error: 'Too many sign-in attempts' }), 'password'), 'Too many sign-in attempts', 'without Retry-After, the server’s words');
  assert.equal(waitText(1), '1 second');
  assert.equal(waitText(0.2), '1 second');
  assert.equal(waitText(90), '90 seconds');
  assert.equal(waitText(91), '2 minutes');
  assert.equal(waitText(900), '15 minutes');
});

test('what each role may do in the viewer, as the server enforces it', () => {
  assert.deepEqual(
    (['readonly', 'member', 'admin', 'owner'] as const).map((role) => [role, mayEdit({ role }), mayAdminister({ role })]),
    [
      ['readonly', false, false],
      ['member', true, false],
      ['admin', true, true],
      ['owner', true, true],
    ],
  );
  assert.ok(mayEdit({}) && mayAdminister({}), 'a session without a role is an older server’s service key, which may do everything');
  assert.ok(!(GIVEN_ROLES as readonly string[]).includes('owner'), 'the API never gives owner');
});

test('the top bar names the member, or says it is a service key', () => {
  assert.equal(signedInAs({ email: 'ana@example.com' }), 'ana@example.com');
  assert.equal(signedInAs({ email: null }), 'service key');
  assert.equal(signedInAs({}), 'service key');
});

test('a stored theme counts only when it is one', () => {
  assert.equal(themeOf('dark'), 'dark');
  assert.equal(themeOf('light'), 'light');
  assert.equal(themeOf(null), null);
  assert.equal(themeOf('blue'), null);
});
