import { useMemo, useSyncExternalStore } from 'react';
import { type Route, matchRoute } from './routes.js';
import { type SearchMemory, followAddresses } from './search-memory.js';

let memory: SearchMemory | undefined;
const listeners = new Set<() => void>();

/** The memory of the search, following the window's address from the router's first use. */
function following(): SearchMemory {
  // The hooks hear of a change once its writer is done: the search writes its address from inside
  // a React state update, during which another component's state must not be set.
  memory ??= followAddresses(window, () => queueMicrotask(() => listeners.forEach((listener) => listener())));
  return memory;
}

function subscribe(listener: () => void): () => void {
  following();
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Told on the window after navigate() moves: unlike Back and Forward, a pushState fires no popstate,
 * so a page that reads its state from the address (the search) would not follow a link to itself.
 */
export const NAVIGATED = 'logstead:navigated';

/** Moves to another page of the viewer without loading the page again; `replace` keeps the history as it is. */
export function navigate(path: string, { replace = false }: { replace?: boolean } = {}): void {
  following();
  if (`${location.pathname}${location.search}` === path) return;
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  window.dispatchEvent(new Event(NAVIGATED));
}

/** The page the address bar names. A change of the search's query string alone renders nothing new here. */
export function useRoute(): Route {
  const pathname = useSyncExternalStore(subscribe, () => location.pathname);
  return useMemo(() => matchRoute(pathname), [pathname]);
}

/** The address of the search as it was last left (as it is now, on the search page), kept current for the Search link. */
export function useSearchPath(): string {
  return useSyncExternalStore(subscribe, () => following().searchPath);
}
