/** The named captures of an RE2 pattern, `(?P<name>` or `(?<name>`, in order, for the type menus. */
export function captureNames(pattern: string): string[] {
  const names: string[] = [];
  for (const match of pattern.matchAll(/\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>/g)) {
    // An escaped parenthesis is a literal, not a group.
    let backslashes = 0;
    for (let at = (match.index ?? 0) - 1; at >= 0 && pattern[at] === '\\'; at--) backslashes++;
    if (backslashes % 2 === 0 && !names.includes(match[1])) names.push(match[1]);
  }
  return names;
}

/** "a, b ,c" as ['a', 'b', 'c']. */
export const parseList = (text: string): string[] => text.split(',').map((item) => item.trim()).filter(Boolean);
export const listText = (items: string[]): string => items.join(', ');
