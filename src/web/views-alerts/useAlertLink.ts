import { useEffect, useRef } from 'react';
import type { LogLine, View } from '../api-client/client.js';
import type { ViewerState } from '../search/url-state.js';

interface Args {
  state: ViewerState;
  views: View[];
  viewsLoaded: boolean;
  lines: LogLine[];
  /** Counts finished searches; the view's search is the first to finish after it was opened. */
  searchSerial: number;
  openView: (view: View) => void;
  openLine: (index: number, line: LogLine) => void;
}

/**
 * A link from an alert names a view (and a line): open the view's search when the link has none,
 * then open the line once it is among that search's results; not among those of a search that
 * ran before the views had loaded, since a new search closes every open line.
 */
export function useAlertLink({ state, views, viewsLoaded, lines, searchSerial, openView, openLine }: Args) {
  const linkedLine = useRef(new URLSearchParams(window.location.search).get('line'));
  const stage = useRef<'awaiting views' | 'awaiting view results' | 'ready'>(state.view ? 'awaiting views' : 'ready');
  // The results of the search from the link's URL can land in the same render as the views: they
  // are not the view's, so the stage waits for a search that finishes after the view was opened.
  const serialAtViewOpen = useRef(0);
  const openLinked = (shown: LogLine[]) => {
    const index = linkedLine.current ? shown.findIndex((line) => line._id === linkedLine.current) : -1;
    if (index < 0) return;
    openLine(index, shown[index]);
    linkedLine.current = null;
  };
  useEffect(() => {
    if (stage.current !== 'awaiting views' || !viewsLoaded) return;
    const view = views.find((candidate) => candidate.viewid === state.view);
    const searched = state.q || state.hosts.length || state.apps.length || state.levels.length || state.tags.length;
    if (view && !searched) {
      openView(view);
      serialAtViewOpen.current = searchSerial;
      stage.current = 'awaiting view results';
    } else {
      stage.current = 'ready';
      openLinked(lines);
    }
  }, [views, viewsLoaded]);
  useEffect(() => {
    if (stage.current === 'awaiting view results' && searchSerial > serialAtViewOpen.current) stage.current = 'ready';
    if (stage.current === 'ready') openLinked(lines);
  }, [lines]);
}
