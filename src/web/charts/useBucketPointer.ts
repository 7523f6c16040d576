import { type MouseEvent, useState } from 'react';

/** A drag across a chart's buckets, first and last in time order (equal for a click). */
export interface BucketDrag {
  start: number;
  end: number;
}

/**
 * The pointer over a chart drawn in equal time buckets (the timeline, a board's graphs): which
 * bucket is hovered, the buckets a drag spans, and `onRelease(first, last)` when the button is
 * released or the pointer leaves. `indexAt` maps a pointer's x on the page to a bucket.
 */
export function useBucketPointer(count: number, indexAt: (clientX: number) => number, onRelease: (first: number, last: number) => void) {
  const [hover, setHover] = useState<number | null>(null);
  const [drag, setDrag] = useState<BucketDrag | null>(null);
  const finish = () => {
    if (!drag) return;
    setDrag(null);
    onRelease(Math.min(drag.start, drag.end), Math.max(drag.start, drag.end));
  };
  const handlers = {
    onMouseDown: (event: MouseEvent) => {
      if (!count) return;
      // No text selection while dragging across the chart.
      event.preventDefault();
      const index = indexAt(event.clientX);
      setDrag({ start: index, end: index });
    },
    onMouseMove: (event: MouseEvent) => {
      if (!count) return;
      const index = indexAt(event.clientX);
      setHover(index);
      if (drag) setDrag({ ...drag, end: index });
    },
    onMouseUp: finish,
    onMouseLeave: () => {
      setHover(null);
      finish();
    },
  };
  return { hover, drag, handlers };
}
