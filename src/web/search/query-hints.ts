import { queryTerms } from './query-terms.js';

/** Levenshtein distance, for "did you mean" on field names. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length];
}

/** Names the search always knows, whatever the lines hold. */
const ALWAYS = new Set(['host', 'source', 'app', 'level', 'tag', 'file', 'env', '_mezmo_line_size', '_line_size', 'size']);

/**
 * Hints for a query, computed here from the lines at hand: a field no line shown has (with the
 * nearest real name when one is close, as `tags:` for `tag:`), and a `*` used as a wildcard.
 * `known` holds the field names of the lines loaded (line-fields.ts knownFields).
 */
export function queryHints(query: string, known: Set<string>): string[] {
  const { fields, wildcards } = queryTerms(query);
  const hints: string[] = [];
  // A path is known when a line has it or anything under it (user:* tests an object exists).
  const has = (name: string) => ALWAYS.has(name) || known.has(name) || known.has(name.replace(/^_/, '')) || [...known].some((field) => field.startsWith(`${name}.`));
  for (const name of new Set(fields)) {
    if (has(name)) continue;
    const candidates = [...ALWAYS, ...known].filter((field) => field !== 'source' && field !== 'size');
    const nearest = candidates.map((field) => ({ field, distance: editDistance(name.toLowerCase(), field.toLowerCase()) })).sort((a, b) => a.distance - b.distance)[0];
    const close = nearest && nearest.distance <= Math.max(1, Math.floor(name.length / 4));
    hints.push(close ? `No line shown has a field "${name}": did you mean ${nearest.field}:?` : `No line shown has a field "${name}"; it may match nothing.`);
  }
  for (const word of new Set(wildcards)) {
    hints.push(`"*" is not a wildcard inside a word ("${word}"): a word already matches as a prefix (err finds error), and field:* tests that a field exists.`);
  }
  return hints;
}
