import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SETTINGS_SECTIONS } from '../navigation/routes.js';
import { sectionsFor } from './settings-sections.js';

describe('the settings a role is offered', () => {
  test('admins and owners get every page; members and readonly members not the admin ones', () => {
    assert.deepEqual(sectionsFor({ role: 'owner' }), [...SETTINGS_SECTIONS]);
    assert.deepEqual(sectionsFor({ role: 'admin' }), [...SETTINGS_SECTIONS]);
    assert.deepEqual(sectionsFor({ role: 'member' }), ['parsing', 'exclusions', 'usage']);
    assert.deepEqual(sectionsFor({ role: 'readonly' }), ['parsing', 'exclusions', 'usage']);
    // A session from a server that predates roles is a service key's, which holds every right.
    assert.deepEqual(sectionsFor({}), [...SETTINGS_SECTIONS]);
  });
});
