import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type HistoryWrites, SearchMemory, followAddresses, observeHistoryWrites } from './search-memory.js';

/**
 * A browser's address and history as far as the router uses them: pushState and replaceState write
 * the address, back and forward move along the entries and then say popstate. Node has no window;
 * this stands in for one, with the same order of events (the address changes, then listeners hear).
 */
class FakeBrowser {
  entries: string[];
  index = 0;
  private popstate: Array<() => void> = [];
  readonly history: HistoryWrites = {
    pushState: (_data: unknown, _unused: string, url?: string | URL | null) => {
      this.entries = [...this.entries.slice(0, this.index + 1), String(url)];
      this.index++;
    },
    replaceState: (_data: unknown, _unused: string, url?: string | URL | null) => {
      this.entries[this.index] = String(url);
    },
  };

  constructor(first: string) {
    this.entries = [first];
  }

  get location() {
    const url = new URL(this.entries[this.index], 'http://viewer.test');
    return { pathname: url.pathname, search: url.search };
  }

  addEventListener(_type: 'popstate', listener: () => void) {
    this.popstate.push(listener);
  }

  back() {
    this.index--;
    this.popstate.forEach((listener) => listener());
  }

  forward() {
    this.index++;
    this.popstate.forEach((listener) => listener());
  }
}

describe("the Search link's memory of the search", () => {
  test('it starts at the search the viewer opened on, or at the bare search from another page', () => {
    assert.equal(new SearchMemory('/', '?q=alpha').searchPath, '/?q=alpha');
    assert.equal(new SearchMemory('/', '').searchPath, '/');
    assert.equal(new SearchMemory('/boards', '?from=1&to=2').searchPath, '/');
  });

  test("only the search page's addresses are remembered; another page's query string is not a search", () => {
    const memory = new SearchMemory('/', '?q=alpha');
    memory.seen('/boards/b1', '?from=1&to=2');
    memory.seen('/settings/usage', '');
    assert.equal(memory.searchPath, '/?q=alpha');
    memory.seen('/', '?q=beta&range=24h');
    assert.equal(memory.searchPath, '/?q=beta&range=24h');
  });

  test("the search's own pushState is seen: a change of the search, then Back out of the page, leaves the link on the changed search", () => {
    const browser = new FakeBrowser('/boards');
    let heard = 0;
    const memory = followAddresses(browser, () => heard++);
    browser.history.pushState(null, '', '/?q=alpha'); // the Search link
    // A page may rewrite its entry in place; the search pushes each change (url-state.ts).
    browser.history.replaceState(null, '', '/?q=alpha&range=1h');
    assert.equal(memory.searchPath, '/?q=alpha&range=1h', 'on the search page, the link is the address shown');
    browser.history.pushState(null, '', '/?q=beta&range=1h');
    assert.equal(memory.searchPath, '/?q=beta&range=1h');
    browser.back();
    browser.back();
    assert.deepEqual(browser.location, { pathname: '/boards', search: '' });
    assert.equal(memory.searchPath, '/?q=alpha&range=1h', 'Back went through the earlier search: that is the one last left');
    browser.forward();
    browser.forward();
    assert.equal(memory.searchPath, '/?q=beta&range=1h');
    browser.history.pushState(null, '', '/settings/members');
    assert.equal(memory.searchPath, '/?q=beta&range=1h', 'the search as it was left for another page');
    browser.back();
    browser.history.pushState(null, '', '/?q=gamma&range=1h'); // a change made straight after coming back
    browser.back();
    browser.back();
    assert.equal(memory.searchPath, '/?q=alpha&range=1h');
    browser.history.replaceState(null, '', '/?q=delta&range=1h'); // a change that replaces its entry
    browser.history.pushState(null, '', '/boards');
    assert.equal(memory.searchPath, '/?q=delta&range=1h');
    assert.equal(heard, 14, 'each write and each move was told');
  });

  test('a history is observed once, and each write still happens, before the observer hears of it', () => {
    const browser = new FakeBrowser('/');
    const heard: string[] = [];
    observeHistoryWrites(browser.history, () => heard.push(browser.entries[browser.index]));
    observeHistoryWrites(browser.history, () => heard.push('twice'));
    browser.history.pushState(null, '', '/?q=a');
    browser.history.replaceState(null, '', '/?q=b');
    assert.deepEqual(browser.entries, ['/', '/?q=b']);
    assert.deepEqual(heard, ['/?q=a', '/?q=b']);
  });
});
