import type { StoredLine } from '../store/types.js';

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
    if (hasOptionalEscapes(row)) text += `\n${row.fields}`;
    cache.set(row, text);
  }
  return text;
}

/**
 * Whether `test` holds for a part of searchText's text, tested part by part without joining them
 * (the parts are the same, in the same order). The parts are separated there by a line break, not
 * a letter or digit, so a word test whose needle has no line break holds for the joined text
 * exactly when it holds for a part: at a part's edges the separator counts as the text's start or
 * end does. A needle with a line break could span two parts: test searchText instead.
 */
export function anySearchedPart(row: SearchableLine, test: (text: string) => boolean): boolean {
  if (test(row.line) || test(row.host) || test(row.app) || test(row.level) || test(row.file) || test(row.env)) return true;
  for (const tag of row.tags) if (test(tag)) return true;
  if (row.meta_indexed && test(row.meta)) return true;
  return hasOptionalEscapes(row) && test(row.fields);
}

/**
 * Whether a JSON line uses escapes JSON never requires: \uXXXX for a character that could have
 * been written as itself (Fluent Bit's logdna output and Python's json.dumps escape all non-ASCII
 * text) or \/. Such a line is also searched as `fields`, the same JSON parsed at ingestion and
 * written back by JSON.stringify with only the escapes JSON requires (\", \\, control
 * characters), so words, and phrases inside a string, are found as in a line sent unescaped (a
 * phrase spanning JSON punctuation meets the re-written spacing and renamed reserved keys). Only
 * these lines pay for the second copy. `fields` is a stored column both twins read, so no escape
 * decoder has to be written twice and kept in agreement, and lines stored before this rule gain
 * it when the index is rebuilt.
 */
const hasOptionalEscapes = (row: SearchableLine) => row.fields !== '' && (row.line.includes('\\u') || row.line.includes('\\/'));

const cache = new WeakMap<SearchableLine, string>();
