import { useEffect, useMemo, useState } from 'react';
import { type BoardRange, absoluteRange, boardRangeSearch, readBoardRange } from './board-range.js';

/** The board's shared range, from its address; a change (a zoom, the picker) is a new history entry, so Back undoes it. */
export function useBoardRange() {
  const [range, setRange] = useState<BoardRange>(() => readBoardRange(location.search));
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const onPop = () => {
      setRange(readBoardRange(location.search));
      setNow(Date.now());
    };
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const absolute = useMemo(() => absoluteRange(range, now), [range, now]);
  const change = (next: BoardRange) => {
    history.pushState(null, '', `${location.pathname}${boardRangeSearch(next)}`);
    setRange(next);
    setNow(Date.now());
  };
  return { range, absolute, change, refresh: () => setNow(Date.now()) };
}
