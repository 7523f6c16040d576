/**
 * The reader's choices kept in this browser (localStorage), each under its own key. The only
 * place the app reads or writes localStorage.
 */
const KEYS = {
  /** "1" when lines show as raw text, "0" when not. */
  raw: 'logstead-raw',
  /** "UTC" or "local". */
  zone: 'logstead-time-zone',
  /** "light" or "dark", once the reader has switched. */
  theme: 'logstead-theme',
} as const;

export type Choice = keyof typeof KEYS;

export const readChoice = (choice: Choice): string | null => localStorage.getItem(KEYS[choice]);
export const keepChoice = (choice: Choice, value: string): void => localStorage.setItem(KEYS[choice], value);
