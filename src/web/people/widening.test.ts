import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../api-client/client.js';
import { sendWidening, wideningOf, wideningQuestion } from './widening.js';

const widens = (members: string[]) => new ApiError(409, { error: 'This change would let …', code: 'Conflict', members });

test('a 409 that names members is a widening; other refusals are not', () => {
  assert.deepEqual(wideningOf(widens(['a@example.com'])), ['a@example.com']);
  assert.equal(wideningOf(new ApiError(409, { error: 'A member with the e-mail exists.' })), null);
  assert.equal(wideningOf(new ApiError(403, { error: 'Forbidden', members: ['a@example.com'] })), null);
  assert.equal(wideningOf(new Error('offline')), null);
});

test('the question names who would see every line', () => {
  assert.equal(
    wideningQuestion('Deleting the group “Billing”', ['neo@example.com']),
    'Deleting the group “Billing” would let neo@example.com see every line of the organisation, with no limit: they would be in no scoped group. Do it anyway?',
  );
  assert.match(wideningQuestion('Deleting it', ['a@x.test', 'b@x.test']), /would let 2 members \(a@x\.test, b@x\.test\) see every line/);
});

test('a widening change is sent again with ?widen=true only when confirmed', async () => {
  const sent: boolean[] = [];
  const send = async (widen: boolean) => {
    sent.push(widen);
    if (!widen) throw widens(['a@example.com']);
    return 'deleted';
  };
  const asked: string[] = [];
  assert.equal(await sendWidening('Deleting it', send, (question) => (asked.push(question), false)), undefined);
  assert.deepEqual(sent, [false], 'declined: not sent again');
  assert.equal(await sendWidening('Deleting it', send, () => true), 'deleted', "the server's answer");
  assert.deepEqual(sent, [false, false, true]);
  assert.match(asked[0], /a@example\.com/);
  assert.equal(await sendWidening('Renaming', async () => 'renamed', () => assert.fail('nothing to ask')), 'renamed');
  await assert.rejects(sendWidening('Deleting it', async () => Promise.reject(new ApiError(403, { error: 'Forbidden' })), () => true), /Forbidden/);
});
