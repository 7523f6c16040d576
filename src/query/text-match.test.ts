import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { MatchMode } from './ast.js';
import { wordMatcher } from './text-match.js';

const wordMatch = (text: string, needle: string, mode: MatchMode) => wordMatcher(needle, mode)(text);

/**
 * The definition of a word match written out the plain way, as it was implemented before the
 * compiled pattern: lower-case both sides (ASCII only), then look at every occurrence.
 */
function reference(text: string, needle: string, mode: MatchMode): boolean {
  if (needle === '') return false;
  const lower = (value: string) => value.replace(/[A-Z]+/g, (upper) => upper.toLowerCase());
  const sensitive = mode === '=' || mode === '===';
  const whole = mode === '==' || mode === '===';
  const haystack = sensitive ? text : lower(text);
  const wanted = sensitive ? needle : lower(needle);
  const alnum = (code: number) => (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
  for (let at = haystack.indexOf(wanted); at >= 0; at = haystack.indexOf(wanted, at + 1)) {
    if (at > 0 && alnum(haystack.charCodeAt(at - 1))) continue;
    const end = at + wanted.length;
    if (whole && end < haystack.length && alnum(haystack.charCodeAt(end))) continue;
    return true;
  }
  return false;
}

const MODES: MatchMode[] = ['', '=', '==', '==='];

test('a word matches at a word start, whole words also at a word end, folding ASCII case only', () => {
  assert.equal(wordMatch('Connection RESET by peer', 'reset', ''), true);
  assert.equal(wordMatch('Connection RESET by peer', 'reset', '='), false, 'case-sensitive');
  assert.equal(wordMatch('preset', 'reset', ''), false, 'not at a word start');
  assert.equal(wordMatch('reset42', 'reset', ''), true, 'a prefix');
  assert.equal(wordMatch('reset42', 'reset', '=='), false, 'not a whole word');
  assert.equal(wordMatch('x.reset!', 'reset', '==='), true);
  assert.equal(wordMatch('ÉTÉ', 'été', ''), false, 'non-ASCII letters compare exactly');
  assert.equal(wordMatch('a+b (c) [d] {e} ^$ | ? * . / \\ -', 'a+b (c) [d] {e} ^$ | ? * . / \\ -', '='), true, 'pattern syntax in the needle is literal');
  assert.equal(wordMatch('\u212a', 'k', ''), false, 'the Kelvin sign is not an ASCII letter');
  assert.equal(wordMatch('anything', '', ''), false);
});

test('the compiled matcher agrees with the plain definition on any text and needle', () => {
  // Letters of both cases, digits, separators, pattern syntax, non-ASCII letters that other case
  // folding rules would fold (É, ß, the Kelvin sign), a surrogate pair and its halves.
  const alphabet = fc.constantFrom(...'aAbBzZ09 _-.\\/()[]{}^$|?*+\n\tÉéß\u212a😀\ud83d\ude00'.split(''));
  const text = fc.array(alphabet, { maxLength: 30 }).map((chars) => chars.join(''));
  const needle = fc.array(alphabet, { minLength: 1, maxLength: 4 }).map((chars) => chars.join(''));
  fc.assert(
    fc.property(text, needle, fc.constantFrom(...MODES), (haystack, wanted, mode) => {
      assert.equal(wordMatcher(wanted, mode)(haystack), reference(haystack, wanted, mode), JSON.stringify({ haystack, wanted, mode }));
    }),
    { numRuns: 20_000 },
  );
  // Needles taken from the text itself, so that most of them occur.
  fc.assert(
    fc.property(text, fc.nat(), fc.integer({ min: 1, max: 5 }), fc.constantFrom(...MODES), (haystack, start, length, mode) => {
      const from = haystack.length === 0 ? 0 : start % haystack.length;
      const wanted = haystack.slice(from, from + length);
      assert.equal(wordMatcher(wanted, mode)(haystack), reference(haystack, wanted, mode), JSON.stringify({ haystack, wanted, mode }));
    }),
    { numRuns: 20_000 },
  );
});
