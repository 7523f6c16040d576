import { useCallback, useRef, useState } from 'react';
import { type Filters, type LogLine, type Page, api } from '../api-client/client.js';

export const PAGE_SIZE = 500;
/** Lines kept in memory; beyond this the oldest are dropped as live lines arrive. */
export const MAX_LINES = 100_000;

/**
 * A search's lines: its newest page, older pages loaded on demand at the top, and live lines
 * appended at the bottom. `onPrepend` hears how many lines an older page added, in the same update.
 */
export function useLinePages(filters: Filters, onPrepend: (count: number) => void) {
  const [lines, setLines] = useState<LogLine[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  /** Lines just added at the top, to keep the reader's place; serial changes each time. */
  const [prepended, setPrepended] = useState({ count: 0, serial: 0 });
  const loadingOlder = useRef(false);

  const show = useCallback((page: Page, arrived: LogLine[]) => {
    setLines([...page.lines, ...arrived]);
    setCursor(page.pagination_id);
    setPrepended({ count: 0, serial: 0 });
  }, []);

  const loadOlder = useCallback(async () => {
    if (!cursor || loadingOlder.current) return;
    loadingOlder.current = true;
    try {
      const page = await api.page(filters, PAGE_SIZE, cursor);
      setLines((current) => [...page.lines, ...current].slice(0, MAX_LINES));
      setPrepended((current) => ({ count: page.lines.length, serial: current.serial + 1 }));
      onPrepend(page.lines.length);
      setCursor(page.pagination_id);
    } finally {
      loadingOlder.current = false;
    }
  }, [cursor, filters, onPrepend]);

  const append = useCallback((incoming: LogLine[]) => setLines((current) => [...current, ...incoming].slice(-MAX_LINES)), []);
  /** A failed search has no older pages to offer. */
  const forgetOlder = useCallback(() => setCursor(null), []);

  return { lines, prepended, show, loadOlder, append, forgetOlder };
}
