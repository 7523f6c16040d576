import { type RefObject, useLayoutEffect, useState } from 'react';

/** The width of an element, followed as it resizes (a chart draws to its box's width). */
export function useWidth(box: RefObject<HTMLElement | null>, fallback = 800): number {
  const [width, setWidth] = useState(fallback);
  useLayoutEffect(() => {
    const element = box.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setWidth(element.clientWidth || fallback));
    observer.observe(element);
    setWidth(element.clientWidth || fallback);
    return () => observer.disconnect();
  }, [box, fallback]);
  return width;
}
