/**
 * The benchmark's searches as conditions for each index design, all with the search language's
 * exact meaning: a word matches at a word start, without case (src/query/text-match.ts). The
 * `text` design uses the real compiler (src/query/to-sql.ts). The others narrow with their index
 * (when it can decide nothing, they scan) and then apply the same exact word-boundary match the
 * compiler uses, so every design must return the same lines.
 */
import { compileQuery } from '../../src/query/compile.js';
import { indexTokens, wordPattern } from '../../src/query/text-match.js';
import type { SqlCondition } from '../../src/store/types.js';
import { INDEXED_TEXT, SEARCH_TEXT } from '../../src/store/schema.js';
import type { SearchIndex } from './table.js';

export type Needles = string[];

/** Case-folded LIKE pattern for a substring (%, _ and \ escaped). */
const likeContaining = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`;

/**
 * A condition for lines holding every needle (each a bare word or a quoted phrase, mode '').
 * `wholeTokens`: tokenbf only, treat the last word as a whole token (VictoriaLogs' meaning, not
 * Logstead's: `segfault` would no longer find `segfaults`), to show what that meaning would buy.
 */
export function conditionFor(index: SearchIndex, query: string, needles: Needles, wholeTokens = false): SqlCondition {
  if (index.kind === 'text') return compileQuery(query, null)!;
  const params: Record<string, unknown> = {};
  let next = 0;
  const bind = (value: unknown, type: string) => {
    const name = `c${next++}`;
    params[name] = value;
    return `{${name}:${type}}`;
  };
  const tests = needles.map((needle) => {
    const exact = `match(lower(${SEARCH_TEXT}), ${bind(wordPattern(needle, wholeTokens ? '==' : ''), 'String')})`;
    // A cheap necessary condition before the regular expression (the needle is ASCII here).
    const contains = `positionCaseInsensitive(${SEARCH_TEXT}, ${bind(needle, 'String')}) > 0`;
    switch (index.kind) {
      case 'none':
      case 'expression':
      case 'text-lowered':
        // Designs only for the text index's cost split (text-index.ts): searched by scan.
        return `(${contains} AND ${exact})`;
      case 'ngrambf':
        // Every n-gram of the needle is in the indexed text of a matching line.
        return needle.length >= index.n ? `(${INDEXED_TEXT} LIKE ${bind(likeContaining(needle), 'String')} AND ${exact})` : `(${contains} AND ${exact})`;
      case 'tokenbf': {
        // Only whole tokens can be asked of a token Bloom filter; a trailing prefix cannot.
        const { whole, prefix } = indexTokens(needle, wholeTokens ? '==' : '');
        const tokens = [...whole, ...(wholeTokens && prefix ? [prefix] : [])];
        if (tokens.length === 0) return `(${contains} AND ${exact})`;
        return `(${tokens.map((token) => `hasToken(${INDEXED_TEXT}, ${bind(token, 'String')})`).join(' AND ')} AND ${exact})`;
      }
    }
  });
  return { sql: `(${tests.join(' AND ')})`, params, readsLines: true };
}
