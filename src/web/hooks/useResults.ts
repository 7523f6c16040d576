import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, type Facets, type Filters, type HistogramBucket, type LogLine, type Page, api, filterParams } from '../api.js';
import { reversedRange } from '../url-state.js';

const PAGE_SIZE = 500;
/** Lines kept in memory; beyond this the oldest are dropped as live lines arrive. */
export const MAX_LINES = 100_000;

export interface Timeline {
  buckets: HistogramBucket[];
  interval: number;
}
export interface QueryError {
  message: string;
  position?: number;
}

/** Adds live lines to the timeline's buckets, opening new buckets as time moves past the last one. */
function countInto(timeline: Timeline, lines: LogLine[]): Timeline {
  if (!timeline.buckets.length || !lines.length) return timeline;
  const buckets = timeline.buckets.map((bucket) => ({ ...bucket, levels: { ...bucket.levels } }));
  for (const line of lines) {
    let last = buckets[buckets.length - 1];
    while (line._ts >= last.ts + timeline.interval) {
      last = { ts: last.ts + timeline.interval, count: 0, levels: {} };
      buckets.push(last);
    }
    const bucket = buckets.find((candidate) => line._ts >= candidate.ts && line._ts < candidate.ts + timeline.interval);
    if (!bucket) continue;
    const level = (line.level || 'OTHER').toUpperCase();
    bucket.count += 1;
    bucket.levels[level] = (bucket.levels[level] ?? 0) + 1;
  }
  // The chart keeps its width: the oldest buckets scroll off as new ones open.
  return { ...timeline, buckets: buckets.slice(-Math.max(timeline.buckets.length, 1)) };
}

/**
 * One search's results: the newest page of lines (older pages on demand), its timeline and its
 * filter values. A search that fails keeps the previous results, marked stale, beside its error.
 */
export function useResults(filters: Filters) {
  const [lines, setLines] = useState<LogLine[]>([]);
  const [olderCursor, setOlderCursor] = useState<string | null>(null);
  const [prepended, setPrepended] = useState({ count: 0, serial: 0 });
  const [searchSerial, setSearchSerial] = useState(0);
  const [loading, setLoading] = useState(false);
  const [stale, setStale] = useState(false);
  /** The filters whose answer is on screen (or whose failure is), so a reader (or a test) knows a search has finished. */
  const [answered, setAnswered] = useState<Filters | null>(null);
  const [timeline, setTimeline] = useState<Timeline>({ buckets: [], interval: 1 });
  const [facets, setFacets] = useState<Facets | null>(null);
  const [queryError, setQueryError] = useState<QueryError | null>(null);
  const [searchError, setSearchError] = useState('');
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const [selected, setSelected] = useState(-1);
  const loadingOlder = useRef(false);
  /** Live lines that arrive while a search is loading, added once its results are in. */
  const arrivedDuringSearch = useRef<LogLine[] | null>(null);

  useEffect(() => {
    let cancelled = false;
    setExpanded(new Set());
    setSelected(-1);
    const reversed = reversedRange(filters.from, filters.to);
    if (reversed) {
      setQueryError(null);
      setSearchError(reversed);
      setStale(true);
      setAnswered(filters);
      return;
    }
    setLoading(true);
    arrivedDuringSearch.current = [];
    const params = filterParams(filters);
    Promise.all([
      api<Page>('GET', `/v2/export?${filterParams(filters, { size: String(PAGE_SIZE), prefer: 'tail' })}`),
      api<Timeline>('GET', `/v1/histogram?${params}&buckets=60`),
      // Each menu is counted with the other menus' selections applied (the server cross-filters).
      api<Facets>('GET', `/v1/viewer/facets?${params}`),
    ]).then(
      ([page, found, values]) => {
        if (cancelled) return;
        setQueryError(null);
        setSearchError('');
        setStale(false);
        const seen = new Set(page.lines.map((line) => line._id));
        const arrived = (arrivedDuringSearch.current ?? []).filter((line) => !seen.has(line._id));
        setLines([...page.lines, ...arrived]);
        arrivedDuringSearch.current = null;
        setOlderCursor(page.pagination_id);
        setPrepended({ count: 0, serial: 0 });
        setSearchSerial((serial) => serial + 1);
        setTimeline(countInto(found, arrived));
        setFacets(values);
        setLoading(false);
        setAnswered(filters);
      },
      (error) => {
        if (cancelled) return;
        arrivedDuringSearch.current = null;
        setLoading(false);
        // The previous results stay, greyed, so the reader keeps their place while fixing the query.
        setStale(true);
        setOlderCursor(null);
        setAnswered(filters);
        if (error instanceof ApiError && error.body.position !== undefined) {
          setQueryError({ message: error.body.expected ? `Expected ${error.body.expected}` : error.body.error, position: error.body.position });
          setSearchError('');
        } else {
          setQueryError(null);
          setSearchError(error instanceof ApiError ? error.body.error : String(error));
        }
      },
    );
    return () => {
      cancelled = true;
    };
  }, [filters]);

  const loadOlder = useCallback(async () => {
    if (!olderCursor || loadingOlder.current) return;
    loadingOlder.current = true;
    try {
      const page = await api<Page>('GET', `/v2/export?${filterParams(filters, { size: String(PAGE_SIZE), prefer: 'tail', pagination_id: olderCursor })}`);
      setLines((current) => [...page.lines, ...current].slice(0, MAX_LINES));
      setPrepended((current) => ({ count: page.lines.length, serial: current.serial + 1 }));
      setSelected((index) => (index >= 0 ? index + page.lines.length : index));
      setOlderCursor(page.pagination_id);
    } finally {
      loadingOlder.current = false;
    }
  }, [olderCursor, filters]);

  /** Live lines: counted in the timeline now; shown now, or held back (returns false) while a search loads. */
  const countLive = useCallback((incoming: LogLine[]) => {
    if (arrivedDuringSearch.current) {
      arrivedDuringSearch.current.push(...incoming);
      return false;
    }
    setTimeline((current) => countInto(current, incoming));
    return true;
  }, []);
  const appendLines = useCallback((incoming: LogLine[]) => setLines((current) => [...current, ...incoming].slice(-MAX_LINES)), []);

  const toggle = useCallback(
    (line: LogLine) =>
      setExpanded((current) => {
        const next = new Set(current);
        if (next.has(line._id)) next.delete(line._id);
        else next.add(line._id);
        return next;
      }),
    [],
  );

  return {
    lines,
    loading,
    answered,
    stale,
    timeline,
    facets,
    queryError,
    searchError,
    prepended,
    searchSerial,
    expanded,
    setExpanded,
    selected,
    setSelected,
    toggle,
    loadOlder,
    countLive,
    appendLines,
  };
}
