import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_COLUMNS, type ViewerState, liveChange, readState, reversedRange, timeRange, toFilters, urlProblems, writeState } from './url-state.js';

/** A window whose URL is `search`, recording the URLs pushed. */
function withWindow(search: string, pushed: string[]) {
  Object.defineProperty(globalThis, 'window', {
    value: { location: { pathname: '/', search }, history: { pushState: (_state: unknown, _title: string, url: string) => pushed.push(url) } },
    configurable: true,
  });
}

describe('the search in the URL', () => {
  test('an empty URL is the last hour with the default columns, on the lines', () => {
    assert.deepEqual(readState(''), { q: '', range: '1h', from: 0, to: 0, hosts: [], apps: [], levels: [], tags: [], view: '', live: false, columns: DEFAULT_COLUMNS, tab: 'lines' });
  });

  test('reads every part back', () => {
    const state = readState('?q=level%3Aerror&from=1000&to=2000&hosts=a,b&apps=api&levels=ERROR&tags=prod,&view=v1&columns=level,user.id');
    assert.equal(state.q, 'level:error');
    assert.equal(state.range, 'custom');
    assert.deepEqual([state.from, state.to], [1000, 2000]);
    assert.deepEqual(state.hosts, ['a', 'b']);
    assert.deepEqual(state.tags, ['prod'], 'empty list items are dropped');
    assert.equal(state.view, 'v1');
    assert.deepEqual(state.columns, ['level', 'user.id']);
    assert.deepEqual(readState('?columns=').columns, [], 'no columns at all is a choice too');
  });

  test('what cannot be used reads as the last hour, and live tail always follows the present', () => {
    assert.equal(readState('?range=2w').range, '1h');
    assert.equal(readState('?from=1000').range, '1h', 'only one end');
    assert.equal(readState('?from=abc&to=2000').range, '1h');
    assert.equal(readState('?range=custom&from=1&to=2&live=1').range, '1h');
    assert.equal(readState('?range=7d&live=1').range, '7d');
    assert.equal(readState('?live=1').live, true);
    assert.equal(readState('?live=yes').live, false);
  });

  test('reports each problem of a URL once, in words', () => {
    assert.deepEqual(urlProblems('?range=1h&q=x'), []);
    const problems = urlProblems('?range=2w&colour=red&from=abc&live=maybe');
    assert.ok(problems.some((problem) => /range "2w" is not one of 15m, 1h, 24h, 7d/.test(problem)));
    assert.ok(problems.some((problem) => /"colour" is not one the viewer knows/.test(problem)));
    assert.ok(problems.some((problem) => /"from" is not a time in milliseconds since 1970 \("abc"\)/.test(problem)));
    assert.ok(problems.includes('The URL has only one of "from" and "to"; showing the last hour.'));
    assert.ok(problems.includes('The URL\'s "live" is "maybe"; use 1 or 0.'));
    assert.deepEqual(urlProblems('?from=1&to=2&live=1'), ['Live tail follows the present, so the URL\'s "from" and "to" are not used.']);
    assert.deepEqual(urlProblems('?line=abc&view=v'), [], 'a link from an alert');
  });

  test('writes only what differs from the defaults, and pushes only a changed URL', () => {
    const pushed: string[] = [];
    withWindow('?range=1h', pushed);
    const state: ViewerState = { ...readState(''), range: '1h' };
    writeState(state);
    assert.equal(pushed.length, 0, 'the same URL is not pushed again');
    writeState({ ...state, q: 'a b', hosts: ['h1', 'h2'], live: true, view: 'v1', columns: ['level'] });
    assert.deepEqual(pushed, ['/?q=a+b&range=1h&hosts=h1%2Ch2&view=v1&live=1&columns=level']);
    writeState({ ...state, range: 'custom', from: 5, to: 9 });
    assert.equal(pushed[1], '/?from=5&to=9');
    assert.deepEqual(readState(pushed[0].slice(1)), { ...state, q: 'a b', hosts: ['h1', 'h2'], live: true, view: 'v1', columns: ['level'] }, 'what is written reads back');
  });

  test('the results tab is in the URL only when it is Patterns, and reads back', () => {
    const pushed: string[] = [];
    withWindow('?range=1h', pushed);
    const state: ViewerState = { ...readState(''), range: '1h' };
    assert.equal(state.tab, 'lines');
    writeState({ ...state, tab: 'patterns' });
    assert.deepEqual(pushed, ['/?range=1h&tab=patterns']);
    assert.equal(readState(pushed[0].slice(1)).tab, 'patterns');
    assert.equal(readState('?tab=graphs').tab, 'lines');
    assert.deepEqual(urlProblems('?tab=patterns'), []);
    assert.deepEqual(urlProblems('?tab=graphs'), ['The URL\'s "tab" is "graphs"; use lines or patterns.']);
  });

  test('the time range a state stands for, now', () => {
    const state = readState('?range=15m');
    assert.deepEqual(timeRange(state, 1_000_000), { from: 1_000_000 - 15 * 60_000, to: 1_000_000 });
    assert.deepEqual(timeRange(readState('?from=5&to=9'), 1_000_000), { from: 5, to: 9 });
    assert.deepEqual(toFilters(readState('?q=x&apps=api&range=24h'), 100_000_000), { q: 'x', from: 100_000_000 - 86_400_000, to: 100_000_000, hosts: [], apps: ['api'], levels: [], tags: [] });
  });

  test('switching live tail on leaves a custom range for the last hour; a preset stays', () => {
    assert.deepEqual(liveChange(true, 'custom'), { live: true, range: '1h' });
    assert.deepEqual(liveChange(true, '24h'), { live: true });
    assert.deepEqual(liveChange(false, 'custom'), { live: false });
  });

  test('a reversed range has one message wherever it was entered', () => {
    assert.equal(reversedRange(2, 1), 'The time range ends before it starts: "from" must not be later than "to".');
    assert.equal(reversedRange(1, 1), undefined);
  });
});
