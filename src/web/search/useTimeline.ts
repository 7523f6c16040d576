import { useCallback, useState } from 'react';
import type { LogLine } from '../api-client/client.js';
import { type Timeline, countInto } from './timeline.js';

/** The timeline of the search on screen, with live lines counted into it as they come. */
export function useTimeline() {
  const [timeline, setTimeline] = useState<Timeline>({ buckets: [], interval: 1 });
  /** A search's histogram, with the live lines that arrived while it loaded. */
  const show = useCallback((found: Timeline, arrived: LogLine[]) => setTimeline(countInto(found, arrived)), []);
  const count = useCallback((lines: LogLine[]) => setTimeline((current) => countInto(current, lines)), []);
  return { timeline, show, count };
}
