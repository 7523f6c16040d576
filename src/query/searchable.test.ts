import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { MatchMode } from './ast.js';
import { type SearchableLine, anySearchedPart, searchText } from './searchable.js';
import { wordMatcher } from './text-match.js';

test('testing the searched text part by part agrees with testing it joined, for needles without a line break', () => {
  const alphabet = fc.constantFrom(...'aAbZ0 .-_\n\\u{}"'.split(''));
  const text = fc.array(alphabet, { maxLength: 12 }).map((chars) => chars.join(''));
  const row: fc.Arbitrary<SearchableLine> = fc.record({
    line: text, host: text, app: text, level: text, file: text, env: text,
    tags: fc.array(text, { maxLength: 3 }), meta: text, meta_indexed: fc.boolean(), fields: text, size: fc.nat(),
  });
  const modes: MatchMode[] = ['', '=', '==', '==='];
  fc.assert(
    fc.property(row, fc.array(alphabet, { minLength: 1, maxLength: 4 }).map((chars) => chars.join('')), fc.constantFrom(...modes), (line, needle, mode) => {
      // A needle with a line break is tested on the joined text (to-predicate.ts).
      fc.pre(!needle.includes('\n'));
      const matches = wordMatcher(needle, mode);
      assert.equal(anySearchedPart(line, matches), matches(searchText(line)), JSON.stringify({ line, needle, mode }));
    }),
    { numRuns: 20_000 },
  );
});
