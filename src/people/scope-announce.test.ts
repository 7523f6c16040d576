import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ConfigKysely } from '../repository/open.js';
import type { Members } from './members.js';
import { ScopeFollower, type ScopedViews } from './scope-follow.js';

/**
 * How ScopeFollower tells the open tails that scopes changed: once per organisation however many
 * members a group had, and even when following one member's views fails midway, as the change is
 * saved by then. The members and views are stand-ins: what is counted is the announcements, which
 * no database shows.
 */

function follower(failFor: string[] = []) {
  const told: string[] = [];
  const followed: string[] = [];
  const reloaded: string[] = [];
  const members = { access: async (id: string) => (id.startsWith('gone') ? undefined : { account: id.split(':')[0], scope: ['app:web'] }) } as unknown as Members;
  const views: ScopedViews = {
    followScope: async (id) => {
      if (failFor.includes(id)) throw new Error('views could not follow');
      followed.push(id);
    },
    peopleChanged: async (account) => void reloaded.push(account),
  };
  return { scopes: new ScopeFollower({} as ConfigKysely, members, views, (account) => told.push(account)), told, followed, reloaded };
}

test("a group's members are followed each, and their organisation's tails told once", async () => {
  const { scopes, told, followed, reloaded } = follower();
  await scopes.allOf(['acme:1', 'acme:2', 'gone:3', 'acme:4']);
  assert.deepEqual(followed, ['acme:1', 'acme:2', 'acme:4']);
  assert.deepEqual(told, ['acme']);
  assert.deepEqual(reloaded, ['acme'], 'the alert rules reload once for the organisation');
});

test('a failure midway still tells the tails of what was read, then is thrown', async () => {
  const { scopes, told, followed } = follower(['acme:2']);
  await assert.rejects(scopes.allOf(['acme:1', 'acme:2', 'acme:3']), /views could not follow/);
  assert.deepEqual(followed, ['acme:1']);
  assert.deepEqual(told, ['acme']);
  const single = follower(['acme:9']);
  await assert.rejects(single.scopes.member('acme:9'));
  assert.deepEqual(single.told, ['acme'], 'one member whose views fail: still told');
});

test('a removal reloads the alert rules and tells the tails of its organisation', async () => {
  const { scopes, told, reloaded } = follower();
  await scopes.removed('acme');
  assert.deepEqual([told, reloaded], [['acme'], ['acme']]);
});

test('no member with access: nobody is told', async () => {
  const { scopes, told } = follower();
  await scopes.allOf(['gone:1']);
  await scopes.allOf([]);
  assert.deepEqual(told, []);
});
