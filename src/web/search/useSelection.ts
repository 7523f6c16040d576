import { useCallback, useEffect, useState } from 'react';
import type { Filters, LogLine } from '../api-client/client.js';

/** The line selected (with j and k) and the lines opened; a new search starts with none. */
export function useSelection(filters: Filters) {
  const [selected, setSelected] = useState(-1);
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  useEffect(() => {
    setExpanded(new Set());
    setSelected(-1);
  }, [filters]);

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
  /** Selects a line and opens it alone. */
  const open = useCallback((index: number, line: LogLine) => {
    setSelected(index);
    setExpanded(new Set([line._id]));
  }, []);
  /** Lines were added above: the selection stays on its line. */
  const shift = useCallback((count: number) => setSelected((index) => (index >= 0 ? index + count : index)), []);

  return { selected, setSelected, expanded, toggle, open, shift };
}
