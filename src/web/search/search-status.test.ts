import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError, type Filters } from '../api-client/client.js';
import { IDLE, type SearchStatus, searchStatus } from './search-status.js';

const filters: Filters = { q: 'x', from: 1, to: 2, hosts: [], apps: [], levels: [], tags: [] };
const run = (...events: Parameters<typeof searchStatus>[1][]): SearchStatus => events.reduce(searchStatus, IDLE);

describe("a search's status", () => {
  test('loading, then answered: the answer is current, and the serial counts it', () => {
    const loading = run({ kind: 'started' });
    assert.equal(loading.loading, true);
    assert.equal(loading.answered, null);
    const done = searchStatus(loading, { kind: 'answered', filters });
    assert.deepEqual(done, { loading: false, stale: false, answered: filters, queryError: null, searchError: '', serial: 1 });
    assert.equal(done.answered, filters, 'the very filters asked for, so the page can tell the answer is current');
  });

  test('a query that does not parse is a query error with its position; results go stale', () => {
    const error = new ApiError(400, { error: 'Expected a term', position: 12, expected: '")"' });
    const failed = run({ kind: 'started' }, { kind: 'answered', filters }, { kind: 'started' }, { kind: 'failed', filters, error });
    assert.deepEqual(failed.queryError, { message: 'Expected ")"', position: 12 });
    assert.equal(failed.searchError, '');
    assert.equal(failed.stale, true);
    assert.equal(failed.loading, false);
    assert.equal(failed.serial, 1, 'a failure is not a finished search');
    assert.deepEqual(run({ kind: 'failed', filters, error: new ApiError(400, { error: 'bad', position: 0 }) }).queryError, { message: 'bad', position: 0 });
  });

  test('any other failure is a search error, not blamed on the query', () => {
    const api = run({ kind: 'failed', filters, error: new ApiError(503, { error: 'storage is unavailable' }) });
    assert.equal(api.queryError, null);
    assert.equal(api.searchError, 'storage is unavailable');
    assert.equal(run({ kind: 'failed', filters, error: new TypeError('Failed to fetch') }).searchError, 'TypeError: Failed to fetch');
  });

  test('a reversed range is refused unsent: the error shows, and loading is left as it was', () => {
    const refused = run({ kind: 'started' }, { kind: 'refused', filters, message: 'reversed' });
    assert.equal(refused.searchError, 'reversed');
    assert.equal(refused.stale, true);
    assert.equal(refused.loading, true);
    assert.equal(refused.answered, filters);
    const fixed = searchStatus(refused, { kind: 'answered', filters });
    assert.equal(fixed.searchError, '');
    assert.equal(fixed.stale, false);
  });
});
