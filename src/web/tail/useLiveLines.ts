import { useEffect, useState } from 'react';
import type { Filters, LogLine } from '../api-client/client.js';
import { MAX_LINES } from '../search/useLinePages.js';
import { useLiveTail } from './live-tail.js';
import { holdBack } from './tail-messages.js';

/** Where live lines go: the search's results. */
interface Results {
  countLive: (lines: LogLine[]) => boolean;
  appendLines: (lines: LogLine[]) => void;
}

/**
 * Live tail into the results: new lines append at the bottom, unless the reader has scrolled up or
 * is selecting text; then they wait, counted, until the reader resumes.
 */
export function useLiveLines(enabled: boolean, filters: Filters, results: Results) {
  const [atBottom, setAtBottom] = useState(true);
  const [selecting, setSelecting] = useState(false);
  const [pending, setPending] = useState<LogLine[]>([]);
  const paused = !atBottom || selecting;

  const { status, sampling } = useLiveTail(enabled, filters, (incoming) => {
    if (!results.countLive(incoming)) return;
    if (paused) setPending((current) => holdBack(current, incoming, MAX_LINES));
    else results.appendLines(incoming);
  });
  useEffect(() => setPending([]), [filters]);

  const resume = () => {
    results.appendLines(pending);
    setPending([]);
    setAtBottom(true);
  };
  useEffect(() => {
    if (!paused && pending.length) resume();
  }, [paused]);

  useEffect(() => {
    const onSelection = () => setSelecting(!!document.getSelection()?.toString());
    document.addEventListener('selectionchange', onSelection);
    return () => document.removeEventListener('selectionchange', onSelection);
  }, []);

  return { status, sampling, pending: pending.length, paused: enabled && paused, resume, setAtBottom };
}
