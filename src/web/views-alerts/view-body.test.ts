import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Preset, View } from '../api-client/client.js';
import { readState } from '../search/url-state.js';
import { problemsOf, wireChannel } from './channel-wire.js';
import { initialDraft, templateProblem, viewBody, withCategory } from './view-body.js';
import { columnsOf, withColumns } from './view-columns.js';
import { openingView, searchToSave } from './view-search.js';

const webhook = { integration: 'webhook', triggerlimit: 1, url: 'https://hooks.example/x' };
const view: View = {
  viewid: 'v1',
  name: 'Errors',
  query: 'level:error',
  hosts: ['h1'],
  apps: [],
  levels: [],
  tags: [],
  category: ['Ops'],
  description: 'Mine\nColumns: level, user.id',
  presetids: ['p1'],
  channels: [{ ...webhook, alertid: 'own' }, { integration: 'email', triggerlimit: 5, alertid: 'from-preset' }],
};
const presets: Preset[] = [{ presetid: 'p1', name: 'Page me', channels: [{ integration: 'email', triggerlimit: 5, alertid: 'from-preset' }] }];
const onScreen = { query: 'app:api', hosts: [], apps: ['api'], levels: [], tags: [], columns: ['level', 'host', 'app'] };

describe('views and their searches', () => {
  test("columns travel in a view's description, as one line", () => {
    assert.deepEqual(columnsOf('Mine\nColumns: level, user.id'), ['level', 'user.id']);
    assert.equal(columnsOf('no columns here'), null);
    assert.equal(columnsOf(undefined), null);
    assert.equal(withColumns(undefined, ['a', 'b']), 'Columns: a, b');
    assert.equal(withColumns('Mine\n\n', ['a']), 'Mine\nColumns: a');
    assert.equal(withColumns('Mine\nColumns: x\nmore', ['a']), 'Mine\nColumns: a\nmore');
  });

  test('opening a view sets its filters and columns; the default columns when it saved none', () => {
    assert.deepEqual(openingView(view), { view: 'v1', hosts: ['h1'], apps: [], levels: [], tags: [], columns: ['level', 'user.id'] });
    assert.deepEqual(openingView({ ...view, description: undefined }).columns, ['level', 'host', 'app']);
  });

  test('a view is saved from the search on screen; an edited view not on screen keeps its columns', () => {
    const state = { ...readState('?q=x&apps=api&columns=level'), view: 'other' };
    assert.deepEqual(searchToSave(state, null), { query: 'x', hosts: [], apps: ['api'], levels: [], tags: [], columns: ['level'] });
    assert.deepEqual(searchToSave(state, view).columns, ['level', 'user.id']);
    assert.deepEqual(searchToSave({ ...state, view: 'v1' }, view).columns, ['level']);
  });
});

describe('the view form', () => {
  test("an existing view's form holds its own alerts, not its preset's", () => {
    const draft = initialDraft(view, onScreen, presets);
    assert.equal(draft.presetid, 'p1');
    assert.deepEqual(draft.channels, [{ ...webhook, alertid: 'own' }]);
    assert.equal(draft.query, 'level:error');
    const fresh = initialDraft(null, onScreen, presets);
    assert.deepEqual(fresh, { name: '', query: 'app:api', hosts: [], apps: ['api'], levels: [], tags: [], category: [], presetid: '', channels: [] });
  });

  test('a typed category joins unless it is there in any case', () => {
    assert.deepEqual(withCategory(['Ops'], ' Billing '), ['Ops', 'Billing']);
    assert.deepEqual(withCategory(['Ops'], 'ops'), ['Ops']);
    assert.deepEqual(withCategory(['Ops'], '  '), ['Ops']);
  });

  test('a body template that is not JSON is named by its alert before anything is sent', () => {
    assert.equal(templateProblem([webhook, { ...webhook, bodyTemplate: '{"text": "ok"}' }]), undefined);
    assert.equal(templateProblem([webhook, { ...webhook, bodyTemplate: '{text}' }]), 'The body template of alert 2 is not valid JSON; check its quotes and braces.');
    assert.deepEqual(wireChannel({ ...webhook, bodyTemplate: '{"text": "{{ name }}"}' }), { ...webhook, bodyTemplate: { text: '{{ name }}' } });
    assert.deepEqual(wireChannel({ ...webhook, bodyTemplate: '' }), webhook);
  });

  test('what is sent: the form, the categories, the columns when they are not the default, and the preset', () => {
    const draft = initialDraft(null, onScreen, presets);
    assert.deepEqual(viewBody({ ...draft, name: 'API' }, ['New'], null, onScreen), { name: 'API', query: 'app:api', hosts: [], apps: ['api'], levels: [], tags: [], category: ['New'], channels: [] });
    const withOwnColumns = viewBody({ ...draft, presetid: 'p1' }, [], null, { ...onScreen, columns: ['level', 'user.id'] });
    assert.equal(withOwnColumns.description, 'Columns: level, user.id');
    assert.equal(withOwnColumns.presetid, 'p1');
    // A view that saved columns before always says which it has now, even the default ones.
    assert.equal(viewBody(initialDraft(view, onScreen, presets), [], view, onScreen).description, 'Mine\nColumns: level, host, app');
  });

  test("an API refusal as messages, each naming its field", () => {
    assert.deepEqual(problemsOf({ error: 'invalid', details: [{ message: 'must be a valid uri', field: 'Alert channel 1: Webhook URL' }, { message: 'is required' }] }), [
      'Alert channel 1: Webhook URL: must be a valid uri',
      'is required',
    ]);
    assert.deepEqual(problemsOf({ error: 'Not found' }), ['Not found']);
  });
});
