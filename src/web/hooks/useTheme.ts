import { useEffect, useState } from 'react';

export type Theme = 'light' | 'dark';
const KEY = 'logstead-theme';
const systemDark = () => matchMedia('(prefers-color-scheme: dark)');

/**
 * Light or dark: the operating system's choice until the reader picks one with the switch, which
 * is then kept in this browser.
 */
export function useTheme() {
  const [chosen, setChosen] = useState<Theme | null>(() => {
    const stored = localStorage.getItem(KEY);
    return stored === 'light' || stored === 'dark' ? stored : null;
  });
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
    localStorage.setItem(KEY, next);
    setChosen(next);
  };
  return { theme, toggle };
}
