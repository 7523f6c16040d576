import { useEffect, useState } from 'react';
import { type Route, matchRoute } from './routes.js';

/** Said on the window when the app itself moves to another address (the browser says popstate for back and forward). */
const NAVIGATED = 'logstead:navigated';

/** The search's query string when the search page was last left, so the navigation's Search link goes back to it. */
let lastSearch = '';

/** Moves to another page of the viewer without loading the page again; `replace` keeps the history as it is. */
export function navigate(path: string, { replace = false }: { replace?: boolean } = {}): void {
  if (location.pathname === '/') lastSearch = location.search;
  if (`${location.pathname}${location.search}` === path) return;
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  window.dispatchEvent(new Event(NAVIGATED));
}

/** The address of the search as it was last left. */
export const searchPath = () => (location.pathname === '/' ? `/${location.search}` : `/${lastSearch}`);

/** The page the address bar names, following the app's own moves and the browser's back and forward. */
export function useRoute(): Route {
  const [route, setRoute] = useState<Route>(() => matchRoute(location.pathname));
  useEffect(() => {
    const follow = () => {
      if (location.pathname === '/') lastSearch = location.search;
      setRoute((current) => {
        const next = matchRoute(location.pathname);
        // The same page keeps its object, so a change of the search's query string alone renders nothing new here.
        return JSON.stringify(next) === JSON.stringify(current) ? current : next;
      });
    };
    window.addEventListener('popstate', follow);
    window.addEventListener(NAVIGATED, follow);
    return () => {
      window.removeEventListener('popstate', follow);
      window.removeEventListener(NAVIGATED, follow);
    };
  }, []);
  return route;
}
