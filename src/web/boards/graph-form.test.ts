import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { absoluteRange, boardRangeSearch, readBoardRange } from './board-range.js';
import { byCategory, draftOf, graphAbout, problemShown, searchGraph, specOf } from './graph-form.js';

describe("a graph's editor", () => {
  const graph = searchGraph({ q: 'level:error', apps: ['api', 'web'], hosts: [], levels: ['ERROR'], tags: [] }, { title: 'Errors by app', breakdown: { field: 'app', limit: 5 } });

  test('a graph comes back whole from its draft', () => {
    assert.deepEqual(specOf(draftOf(graph)), { spec: graph });
  });

  test("lists are read as typed: trimmed, without empties or repeats", () => {
    const result = specOf({ ...draftOf(graph), apps: ' api, web ,,api', breakdownField: '' });
    assert.ok('spec' in result);
    assert.deepEqual(result.spec.apps, ['api', 'web']);
    assert.equal(result.spec.breakdown, undefined);
  });

  test('a graph without a title, or a measure without its field, or a limit out of range, says what is missing', () => {
    assert.deepEqual(specOf({ ...draftOf(graph), title: ' ' }), { problem: 'Give the graph a title.' });
    assert.deepEqual(specOf({ ...draftOf(graph), measure: 'p95', field: '' }), { problem: 'Name the field whose values are measured.' });
    assert.deepEqual(specOf({ ...draftOf(graph), measure: 'unique', field: '' }), { problem: 'Name the field whose distinct values are counted.' });
    assert.deepEqual(specOf({ ...draftOf(graph), limit: '0' }), { problem: 'Show from 1 to 20 values of app.' });
    assert.deepEqual(specOf({ ...draftOf(graph), limit: '2.5' }), { problem: 'Show from 1 to 20 values of app.' });
  });

  test('a missing title is shown only once the title field was left or a save tried; other problems at once', () => {
    const untitled = { ...draftOf(graph), title: '' };
    assert.equal(problemShown(untitled, false), '', 'a form just opened is not in red');
    assert.equal(problemShown(untitled, true), 'Give the graph a title.');
    assert.equal(problemShown({ ...untitled, measure: 'p95', field: '' }, false), 'Name the field whose values are measured.');
    assert.equal(problemShown(draftOf(graph), true), '');
  });

  test("a graph's subtitle names its measure, its query and each of its menus' choices", () => {
    assert.equal(graphAbout(graph), 'lines by app · level:error · apps: api, web · levels: ERROR');
    assert.equal(graphAbout({ ...graph, query: '', apps: [], levels: [], hosts: ['h1'], tags: ['prod', 'eu'], breakdown: undefined }), 'lines · hosts: h1 · tags: prod, eu');
  });

  test('a count sends no field, a measure of a field sends it', () => {
    const counted = specOf({ ...draftOf(graph), measure: 'count', field: 'left over' });
    assert.ok('spec' in counted);
    assert.deepEqual(counted.spec.measure, { type: 'count' });
    const p95 = specOf({ ...draftOf(graph), measure: 'p95', field: ' duration ' });
    assert.ok('spec' in p95);
    assert.deepEqual(p95.spec.measure, { type: 'p95', field: 'duration' });
  });

  test("the search page's search becomes a graph titled by its query", () => {
    assert.equal(searchGraph({ q: '', apps: [], hosts: [], levels: [], tags: [] }).title, 'All lines');
    assert.deepEqual(graph.levels, ['ERROR']);
  });
});

describe('the boards list', () => {
  test('boards group by category in name order, the uncategorized last', () => {
    const boards = [
      { name: 'b', category: null },
      { name: 'Web', category: 'Team' },
      { name: 'a', category: null },
      { name: 'Api', category: 'Team' },
      { name: 'Cost', category: 'Finance' },
    ];
    assert.deepEqual(
      byCategory(boards).map((group) => [group.category, group.boards.map((board) => board.name)]),
      [
        ['Finance', ['Cost']],
        ['Team', ['Api', 'Web']],
        [null, ['a', 'b']],
      ],
    );
  });
});

describe("a board's range in its address", () => {
  test('a preset, a zoomed range, and the default of the last day', () => {
    assert.deepEqual(readBoardRange(''), { range: '24h', from: 0, to: 0 });
    assert.deepEqual(readBoardRange('?range=7d'), { range: '7d', from: 0, to: 0 });
    assert.deepEqual(readBoardRange('?from=1000&to=2000'), { range: 'custom', from: 1000, to: 2000 });
    for (const range of [readBoardRange('?range=7d'), readBoardRange('?from=1000&to=2000'), readBoardRange('')]) assert.deepEqual(readBoardRange(boardRangeSearch(range)), range);
  });

  test('an unknown preset or a reversed range reads as the default', () => {
    assert.deepEqual(readBoardRange('?range=2w'), { range: '24h', from: 0, to: 0 });
    assert.deepEqual(readBoardRange('?from=2000&to=1000'), { range: '24h', from: 0, to: 0 });
  });

  test('a preset ends now', () => {
    assert.deepEqual(absoluteRange({ range: '1h', from: 0, to: 0 }, 10 * 3_600_000), { from: 9 * 3_600_000, to: 10 * 3_600_000 });
    assert.deepEqual(absoluteRange({ range: 'custom', from: 5, to: 9 }, 100), { from: 5, to: 9 });
  });
});
