import type { StoredLine } from '../store/log-store.js';

/** What a query can look at in a line: the stored row, before or after it reaches the store. */
export type SearchableLine = Pick<
  StoredLine,
  'line' | 'host' | 'app' | 'level' | 'file' | 'env' | 'tags' | 'meta' | 'meta_indexed' | 'fields' | 'size'
>;

/**
 * The text a bare word or phrase is searched in: the line, then its fields, one per line of text so
 * that a word never spans two of them. Meta counts only when it passed the type rule. The SQL twin
 * of this is SEARCH_TEXT in store/schema.ts; the two must build the same string.
 */
export function searchText(row: SearchableLine): string {
  // Built once per line however many views, tails and alerts look at it.
  let text = cache.get(row);
  if (text === undefined) {
    text = [row.line, row.host, row.app, row.level, row.file, row.env, row.tags.join('\n'), row.meta_indexed ? row.meta : ''].join('\n');
    cache.set(row, text);
  }
  return text;
}

const cache = new WeakMap<SearchableLine, string>();
