import { type ReactNode, createContext, useContext } from 'react';

/** The current search's words and phrases, marked wherever lines and field values are shown. */
export const MatchPattern = createContext<RegExp | null>(null);

export function Marked({ text }: { text: string }) {
  const pattern = useContext(MatchPattern);
  if (!pattern || !text) return <>{text}</>;
  const parts: ReactNode[] = [];
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    if (!match[0]) continue;
    const at = match.index ?? 0;
    if (at > last) parts.push(text.slice(last, at));
    parts.push(<mark key={at}>{match[0]}</mark>);
    last = at + match[0].length;
  }
  if (!parts.length) return <>{text}</>;
  parts.push(text.slice(last));
  return <>{parts}</>;
}
