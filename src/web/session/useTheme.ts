import { useEffect, useState } from 'react';
import { keepChoice, readChoice } from '../shared/storage.js';

export type Theme = 'light' | 'dark';
const systemDark = () => matchMedia('(prefers-color-scheme: dark)');

/** A stored choice as a theme: null when the reader has not switched (or the value is not one). */
export const themeOf = (stored: string | null): Theme | null => (stored === 'light' || stored === 'dark' ? stored : null);

/**
 * Light or dark: the operating system's choice until the reader picks one with the switch, which
 * is then kept in this browser.
 */
export function useTheme() {
  const [chosen, setChosen] = useState<Theme | null>(() => themeOf(readChoice('theme')));
  const [system, setSystem] = useState<Theme>(() => (systemDark().matches ? 'dark' : 'light'));
  useEffect(() => {
    const query = systemDark();
    const onChange = () => setSystem(query.matches ? 'dark' : 'light');
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, []);
  const theme = chosen ?? system;
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  const toggle = () => {
    const next = theme === 'dark' ? 'light' : 'dark';
    keepChoice('theme', next);
    setChosen(next);
  };
  return { theme, toggle };
}
