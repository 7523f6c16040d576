import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Route, SETTINGS_SECTIONS, matchRoute, navItemOf, opensElsewhere, pathOf } from './routes.js';

describe("the viewer's addresses", () => {
  test('each page has its path, and the path reads back as the same page', () => {
    const routes: Route[] = [
      { page: 'search' },
      { page: 'boards' },
      { page: 'board', boardId: 'b1a2' },
      { page: 'board', boardId: 'with space/and slash' },
      { page: 'settings', section: null },
      ...SETTINGS_SECTIONS.map((section) => ({ page: 'settings' as const, section })),
    ];
    for (const route of routes) assert.deepEqual(matchRoute(pathOf(route)), route, pathOf(route));
    assert.equal(pathOf({ page: 'settings', section: 'members' }), '/settings/members');
    assert.equal(pathOf({ page: 'board', boardId: 'with space/and slash' }), '/boards/with%20space%2Fand%20slash');
  });

  test('a trailing slash names the same page; the search is at / whatever its query string', () => {
    assert.deepEqual(matchRoute('/boards/'), { page: 'boards' });
    assert.deepEqual(matchRoute('/settings/keys/'), { page: 'settings', section: 'keys' });
    assert.deepEqual(matchRoute('/'), { page: 'search' });
    assert.deepEqual(matchRoute(''), { page: 'search' });
  });

  test('a path the viewer has no page for is unknown, not some other page', () => {
    for (const path of ['/settings/nothing', '/boards/a/b', '/views/x', '/boards/%E0%A4%A', '/settings/members/extra']) {
      assert.deepEqual(matchRoute(path), { page: 'unknown', path }, path);
    }
  });

  test('a board belongs to the Boards item of the navigation; an unknown page to none', () => {
    assert.equal(navItemOf({ page: 'board', boardId: 'x' }), 'boards');
    assert.equal(navItemOf({ page: 'settings', section: 'audit' }), 'settings');
    assert.equal(navItemOf({ page: 'unknown', path: '/x' }), null);
  });

  test('a click with a modifier or another button is left to the browser (a new tab or window)', () => {
    const plain = { button: 0, metaKey: false, ctrlKey: false, shiftKey: false, altKey: false };
    assert.equal(opensElsewhere(plain), false);
    assert.equal(opensElsewhere({ ...plain, ctrlKey: true }), true);
    assert.equal(opensElsewhere({ ...plain, metaKey: true }), true);
    assert.equal(opensElsewhere({ ...plain, button: 1 }), true);
  });
});
