import { type RefObject, useEffect } from 'react';
import type { LogLine } from '../api-client/client.js';

/** Keyboard: "/" focuses the search, j and k move through lines, Enter opens one. */
export function useKeyboard(searchBox: RefObject<HTMLInputElement | null>, lines: LogLine[], selected: number, setSelected: (update: (index: number) => number) => void, toggle: (line: LogLine) => void) {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const typing = event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement || event.target instanceof HTMLSelectElement;
      if (event.key === '/' && !typing) {
        event.preventDefault();
        searchBox.current?.focus();
      } else if (!typing && (event.key === 'j' || event.key === 'k')) {
        setSelected((index) => Math.max(0, Math.min(lines.length - 1, index + (event.key === 'j' ? 1 : -1))));
      } else if (!typing && !(event.target instanceof HTMLButtonElement) && event.key === 'Enter' && selected >= 0 && lines[selected]) {
        toggle(lines[selected]);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [lines, selected]);
}
