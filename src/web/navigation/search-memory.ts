/**
 * Where the navigation's Search link goes: the search as it was last left. Pure, so that the unit
 * tests drive it with plain objects; useRoute.ts feeds it the browser's addresses.
 *
 * The search writes its own state into the address with history.pushState (search/url-state.ts),
 * which raises no event. Noting only the app's own moves and the browser's back and forward, as the
 * first router did, left the link one search behind: on the search page it kept the address the
 * shell was last drawn with, and a click there put an older search in the address bar. So every
 * write to the history is noted too (observeHistoryWrites), whoever makes it.
 */
export class SearchMemory {
  private last: string;

  constructor(pathname: string, search: string) {
    this.last = pathname === '/' ? `/${search}` : '/';
  }

  /** Notes an address the viewer has just taken; an address of the search page is remembered. */
  seen(pathname: string, search: string): void {
    if (pathname === '/') this.last = `/${search}`;
  }

  /** The search's address as it was last seen: the one shown now, when the search page is shown. */
  get searchPath(): string {
    return this.last;
  }
}

/** Marks a history already observed. */
const OBSERVED: unique symbol = Symbol('logstead history observed');

/** The two calls by which a page writes an address into the history without loading it. */
export type HistoryWrites = Pick<History, 'pushState' | 'replaceState'>;

/**
 * Calls `onWrite` after each pushState and replaceState on `target`, once the address has changed.
 * The browser says nothing of these (popstate is only for back and forward). Calling it again on
 * the same target adds nothing.
 */
export function observeHistoryWrites(target: HistoryWrites, onWrite: () => void): void {
  const marked = target as HistoryWrites & { [OBSERVED]?: true };
  if (marked[OBSERVED]) return;
  marked[OBSERVED] = true;
  for (const name of ['pushState', 'replaceState'] as const) {
    const write = target[name];
    target[name] = function (this: unknown, ...args: Parameters<History['pushState']>) {
      write.apply(this, args);
      onWrite();
    };
  }
}

/** What the router reads of a window: its address, its history, and back and forward. */
export interface AddressSource {
  location: { pathname: string; search: string };
  history: HistoryWrites;
  addEventListener(type: 'popstate', listener: () => void): void;
}

/**
 * Follows every change of `source`'s address from now on: the app's own moves, the pages' own
 * writes (the search's state, a board's range) and back and forward. Each is noted in the memory
 * it returns before `onChange` hears of it.
 */
export function followAddresses(source: AddressSource, onChange: () => void): SearchMemory {
  const memory = new SearchMemory(source.location.pathname, source.location.search);
  const changed = () => {
    memory.seen(source.location.pathname, source.location.search);
    onChange();
  };
  observeHistoryWrites(source.history, changed);
  source.addEventListener('popstate', changed);
  return memory;
}
