import { useCallback, useEffect, useMemo, useState } from 'react';
import type { Filters } from '../api-client/client.js';
import { NAVIGATED } from '../navigation/useRoute.js';
import { type ViewerState, readState, toFilters, writeState } from './url-state.js';

/**
 * The search as the URL holds it, the query being typed, and the absolute filters of the search
 * being shown. `update` changes the URL; a change to what is searched starts a new search.
 */
export function useSearchState() {
  const [state, setState] = useState<ViewerState>(() => readState());
  const [now, setNow] = useState(Date.now);
  // Recomputed when a search starts (update() moves `now` whenever a searched field changes).
  const filters: Filters = useMemo(() => toFilters(state, now), [now]);
  const [queryText, setQueryText] = useState(state.q);

  const update = useCallback((change: Partial<ViewerState>) => {
    const searches = Object.keys(change).some((key) => key !== 'live' && key !== 'view' && key !== 'columns' && key !== 'tab');
    setState((current) => {
      // A search changed by hand is no longer the view it started from.
      const next = { ...current, ...(searches && !('view' in change) ? { view: '' } : {}), ...change };
      writeState(next);
      return next;
    });
    // Only a change to what is searched starts a new search; switching live tail, the view label, the columns or the tab does not.
    if (searches) setNow(Date.now());
  }, []);

  /** Runs a query: the search box shows it, and the URL and results follow. */
  const search = useCallback((q: string, extra: Partial<ViewerState> = {}) => {
    setQueryText(q);
    update({ q, ...extra });
  }, [update]);

  useEffect(() => {
    const onPop = () => {
      const next = readState();
      setState(next);
      setQueryText(next.q);
      setNow(Date.now());
    };
    // Back and Forward, and a link to the search itself (the brand, a view's link) followed in place.
    window.addEventListener('popstate', onPop);
    window.addEventListener(NAVIGATED, onPop);
    return () => {
      window.removeEventListener('popstate', onPop);
      window.removeEventListener(NAVIGATED, onPop);
    };
  }, []);

  return { state, filters, queryText, setQueryText, update, search };
}
