import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError, type PasswordLink } from '../api-client/client.js';
import { linkProblem, linkPurpose, passwordProblem } from './password-choice.js';

const link = (purpose: PasswordLink['purpose'], email: string | null = 'ana@example.com'): PasswordLink => ({ purpose, email, organisation: 'Acme', expires: 0 });

test('a new password is long enough and typed the same twice before it is sent', () => {
  assert.equal(passwordProblem('short', 'short'), 'Choose a password of at least 10 characters.');
  assert.equal(passwordProblem('long enough', 'long enougH'), 'The two passwords differ; type the same one twice.');
  assert.equal(passwordProblem('long enough', 'long enough'), null);
});

test('the page says what the link is for', () => {
  assert.deepEqual(linkPurpose(link('invite')), { title: 'You are invited to “Acme”', text: 'Choose a password for ana@example.com to join and sign in.' });
  assert.equal(linkPurpose(link('reset')).title, 'Choose a new password');
  assert.match(linkPurpose(link('reset')).text, /ana@example\.com in “Acme”/);
  assert.equal(linkPurpose(link('owner', null)).title, 'Become the owner of “Acme”');
  assert.equal(linkPurpose({ ...link('invite'), organisation: '' }).title, 'You are invited to this organisation');
});

test("a refused link or password is told in words: the server's for a spent link, each field's for a refused form", () => {
  const used = 'This link has already been used; each link works once. Ask for a new one (reset your password from the sign-in page).';
  assert.equal(linkProblem(new ApiError(410, { error: used })), used);
  assert.match(linkProblem(new ApiError(404, { error: 'This link is not valid.' })), /^This link is not valid\. Check that it was copied whole/);
  const short = { error: '"password" length must be at least 10 characters long', details: [{ message: '"password" length must be at least 10 characters long', key: 'password', field: 'Password' }] };
  assert.equal(linkProblem(new ApiError(400, short)), 'The password length must be at least 10 characters long');
  assert.equal(linkProblem(new TypeError('Failed to fetch')), 'The server could not be reached (Failed to fetch).');
});
