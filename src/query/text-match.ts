import type { MatchMode } from './ast.js';

/**
 * The one definition of "a word matches", shared by both compilers so they cannot drift apart.
 *
 * A search word matches text where it occurs at the start of a word: the character before it is
 * not an ASCII letter or digit (or there is none). With a whole-word mode ('==', '==='), the
 * character after it must not be one either. Case folding is ASCII-only, because that is what
 * ClickHouse's lower() and the text index's tokenizer do; other letters compare exactly.
 */

export const asciiLower = (text: string): string => text.replace(/[A-Z]+/g, (upper) => upper.toLowerCase());

const isAsciiAlnum = (code: number) =>
  (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);

export const caseSensitive = (mode: MatchMode) => mode === '=' || mode === '===';
export const wholeWord = (mode: MatchMode) => mode === '==' || mode === '===';

/**
 * Escapes every ASCII punctuation character, for RE2 and for JavaScript patterns without the `u`
 * flag alike (both take an escaped punctuation character as itself); other characters stand for
 * themselves.
 */
const quoteRegex = (text: string) => text.replace(/[\\^$.|?*+()[\]{}\-/#&~!"'%,:;<=>@`]/g, '\\$&');

/**
 * A test of whether `needle` occurs in a text at a word start (and, for whole words, a word end),
 * compiled once: one regular expression, run by V8's compiled matcher over the text as it is.
 * Folding case lower-cased every text first, a new string for each line each rule looked at;
 * here each ASCII letter is a class of its two cases instead, so other characters still compare
 * exactly (the pattern has no `i` flag, which would fold non-ASCII letters too).
 */
export function wordMatcher(needle: string, mode: MatchMode): (text: string) => boolean {
  if (needle === '') return () => false;
  const fold = !caseSensitive(mode);
  let body = '';
  for (const char of needle.split('')) {
    if (fold && /[A-Za-z]/.test(char)) body += `[${char.toLowerCase()}${char.toUpperCase()}]`;
    else body += quoteRegex(char);
  }
  const pattern = new RegExp(`(?<![A-Za-z0-9])${body}${wholeWord(mode) ? '(?![A-Za-z0-9])' : ''}`);
  return (text) => pattern.test(text);
}


/** The RE2 pattern for wordMatcher, applied by SQL to text already lower-cased when the mode folds case. */
export function wordPattern(needle: string, mode: MatchMode): string {
  const sensitive = caseSensitive(mode);
  const notWordChar = sensitive ? '[^A-Za-z0-9]' : '[^a-z0-9]';
  const body = quoteRegex(sensitive ? needle : asciiLower(needle));
  return `(^|${notWordChar})${body}${wholeWord(mode) ? `($|${notWordChar})` : ''}`;
}

/**
 * The index tokens (store/schema.ts INDEXED_TEXT) that every wordMatcher hit of `needle` contains.
 * Words are runs of ASCII letters and digits, so each run of the needle that is followed by
 * another character of the needle (or, in a whole-word mode, by the needle's end) is a whole
 * token of the text, and a run that ends the needle in a prefix mode is the start of one.
 * `decides` is true when those tokens alone are the match: a single run, compared without case.
 */
export function indexTokens(needle: string, mode: MatchMode): { whole: string[]; prefix: string | null; decides: boolean } {
  const folded = asciiLower(needle);
  const runs = folded.split(/[^a-z0-9]+/).filter((run) => run !== '');
  const endsInWord = folded.length > 0 && isAsciiAlnum(folded.charCodeAt(folded.length - 1));
  const prefix = endsInWord && !wholeWord(mode) ? (runs.pop() ?? null) : null;
  return { whole: runs, prefix, decides: !caseSensitive(mode) && /^[a-z0-9]+$/.test(folded) };
}
