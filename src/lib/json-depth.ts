/**
 * Whether a parsed JSON value nests deeper than `max` levels, checked without recursion. Values
 * from clients are checked before anything recursive (JSON.stringify, validation) touches them,
 * because a deep enough value overflows the stack.
 */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth > max) return true;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}
