import assert from 'node:assert/strict';
import { test } from 'node:test';
import { actionText, changeRows, valueText } from './audit-change.js';

test('a change lists only the fields that changed, nested ones by their path, without the bookkeeping', () => {
  const before = { email: 'ana@example.com', role: 'readonly', groups: ['g1'], active: true, modified: 1, meta: { team: 'ops', floor: 2 } };
  const after = { email: 'ana@example.com', role: 'member', groups: ['g1', 'g2'], active: true, modified: 2, meta: { team: 'dev', floor: 2 } };
  assert.deepEqual(changeRows(before, after), [
    { field: 'role', before: 'readonly', after: 'member' },
    { field: 'groups', before: '["g1"]', after: '["g1","g2"]' },
    { field: 'meta.team', before: 'ops', after: 'dev' },
  ]);
});

test('a creation lists what it was made with, a deletion what it held; a field added or removed shows one side', () => {
  assert.deepEqual(changeRows(null, { name: 'Billing', access_scopes: 'app:billing', created: 5 }), [
    { field: 'name', after: 'Billing' },
    { field: 'access_scopes', after: 'app:billing' },
  ]);
  assert.deepEqual(changeRows({ name: 'Billing' }, null), [{ field: 'name', before: 'Billing' }]);
  assert.deepEqual(changeRows({ a: 1 }, { b: 2 }), [
    { field: 'a', before: '1' },
    { field: 'b', after: '2' },
  ]);
  assert.deepEqual(changeRows(null, null), [], 'a sign-in changes nothing');
  assert.deepEqual(changeRows(null, { method: 'password' }), [{ field: 'method', after: 'password' }]);
});

test('values that are not objects are shown whole, and long ones cut short', () => {
  assert.deepEqual(changeRows('old', 'new'), [{ field: '', before: 'old', after: 'new' }]);
  assert.deepEqual(changeRows([1], [1]), []);
  assert.equal(valueText('x'.repeat(500)).length, 240);
  assert.ok(valueText('x'.repeat(500)).endsWith('…'));
  assert.equal(valueText({ headers: { a: '********' } }), '{"headers":{"a":"********"}}');
  assert.equal(valueText(null), 'null');
});

test('actions read as words', () => {
  assert.equal(actionText('member.update'), 'updated member');
  assert.equal(actionText('group.create'), 'created group');
  assert.equal(actionText('view.delete'), 'deleted view');
  assert.equal(actionText('session.sign-in-failed'), 'sign in failed (session)');
  assert.equal(actionText('member.set-password'), 'set password (member)');
});
