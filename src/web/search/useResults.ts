import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { type Facets, type Filters, type LogLine, api } from '../api-client/client.js';
import { IDLE, searchStatus } from './search-status.js';
import { arrivedAfter } from './timeline.js';
import { PAGE_SIZE, useLinePages } from './useLinePages.js';
import { useTimeline } from './useTimeline.js';
import { reversedRange } from './url-state.js';

/**
 * One search's results: its lines (useLinePages), its timeline (useTimeline), its filter values
 * and its status, all asked for at once and shown together. A search that fails keeps the previous
 * results, marked stale, beside its error. Live lines that arrive while it loads wait for it.
 */
export function useResults(filters: Filters, onPrepend: (count: number) => void) {
  const pages = useLinePages(filters, onPrepend);
  const { timeline, show: showTimeline, count } = useTimeline();
  const [facets, setFacets] = useState<Facets | null>(null);
  const [status, dispatch] = useReducer(searchStatus, IDLE);
  /** Live lines that arrive while a search is loading, added once its results are in. */
  const arrivedDuringSearch = useRef<LogLine[] | null>(null);

  useEffect(() => {
    let cancelled = false;
    const reversed = reversedRange(filters.from, filters.to);
    if (reversed) {
      dispatch({ kind: 'refused', filters, message: reversed });
      return;
    }
    dispatch({ kind: 'started' });
    arrivedDuringSearch.current = [];
    Promise.all([api.page(filters, PAGE_SIZE), api.histogram(filters), api.facets(filters)]).then(
      ([page, found, values]) => {
        if (cancelled) return;
        const arrived = arrivedAfter(page.lines, arrivedDuringSearch.current ?? []);
        arrivedDuringSearch.current = null;
        dispatch({ kind: 'answered', filters });
        pages.show(page, arrived);
        showTimeline(found, arrived);
        setFacets(values);
      },
      (error) => {
        if (cancelled) return;
        arrivedDuringSearch.current = null;
        dispatch({ kind: 'failed', filters, error });
        pages.forgetOlder();
      },
    );
    return () => {
      cancelled = true;
    };
  }, [filters]);

  /** Live lines: counted in the timeline now; shown now, or held back (returns false) while a search loads. */
  const countLive = useCallback((incoming: LogLine[]) => {
    if (arrivedDuringSearch.current) {
      arrivedDuringSearch.current.push(...incoming);
      return false;
    }
    count(incoming);
    return true;
  }, [count]);

  return { pages, timeline, facets, status, live: { countLive, appendLines: pages.append } };
}
