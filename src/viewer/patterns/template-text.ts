import { createHash } from 'node:crypto';
import { WILDCARD } from './drain.js';

/**
 * What a template gives beside itself: its id, a search that finds its lines, and the RE2 pattern
 * that tells whether a masked text fits it. A template's constant pieces (the text between its
 * placeholders) are, in order, text of every line it stands for: masking only ever replaces text
 * with `<*>` (store/line-patterns.ts), and Drain only ever turns tokens into `<*>` (drain.ts).
 */

/** A template's id: the same template always has the same one, whatever range or search found it. */
export const templateId = (template: string): string => createHash('sha256').update(template).digest('hex').slice(0, 16);

/** At most this many phrases, and this many characters of each, go into a template's search. */
const MAX_PHRASES = 12;
const MAX_PHRASE_CHARS = 400;

const isAsciiAlnum = (char: string) => /^[A-Za-z0-9]$/.test(char);
const hasWordCharacter = (text: string) => /[A-Za-z0-9]/.test(text);

/**
 * The phrase of a constant piece that the search language can find. A phrase matches where it
 * starts a word (the character before it is not an ASCII letter or digit; docs/search.md), and
 * the character before a piece is a placeholder's, unknown. So a piece after a placeholder is
 * searched from just after its first character that is not a letter or digit: `s took ` gives
 * `took `. The first piece starts the line, which is a word start.
 */
function searchablePhrase(piece: string, startsLine: boolean): string | undefined {
  let start = 0;
  if (!startsLine) {
    start = -1;
    for (let at = 1; at <= piece.length; at++) {
      if (!isAsciiAlnum(piece[at - 1])) {
        start = at;
        break;
      }
    }
    if (start < 0) return undefined;
  }
  // A prefix of a phrase still matches wherever the phrase does (phrases match word prefixes).
  const phrase = piece.slice(start, start + MAX_PHRASE_CHARS);
  return hasWordCharacter(phrase) ? phrase : undefined;
}

const quotePhrase = (phrase: string) => `"${phrase.replace(/[\\"]/g, '\\$&')}"`;

/**
 * A search in the viewer's language that finds every line of a template: its constant pieces as
 * quoted phrases, ANDed (the longest MAX_PHRASES of them, in the template's order; any of them
 * alone would still find every line). It may find other lines too: a phrase is searched in the
 * line's fields as well as its text, any case, and says nothing of the placeholders between
 * phrases. '' when the template has no constant word (`<*> <*>`): no search tells its lines apart.
 */
export function templateQuery(template: string): string {
  const pieces = template.split(WILDCARD);
  const phrases = pieces
    .map((piece, index) => ({ index, phrase: searchablePhrase(piece, index === 0) }))
    .filter((found): found is { index: number; phrase: string } => found.phrase !== undefined);
  const kept = [...phrases]
    .sort((a, b) => b.phrase.length - a.phrase.length || a.index - b.index)
    .slice(0, MAX_PHRASES)
    .sort((a, b) => a.index - b.index);
  return kept.map((found) => quotePhrase(found.phrase)).join(' ');
}

const escapeRe2 = (text: string) => text.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');

/**
 * The RE2 pattern a masked text (store/line-patterns.ts) matches when it fits the template: the
 * same constant pieces, each placeholder standing for any run of characters other than a space
 * (a masked text is split into tokens at spaces, and a masked value holds none).
 */
export const templateFitPattern = (template: string): string => `^${template.split(WILDCARD).map(escapeRe2).join('[^ ]*')}$`;

/**
 * The longest run of a template's constant text without `<`, `*` or `>`, which every line that
 * fits the template holds as it is: a masked text is its line with spans replaced by `<*>`, so
 * text of the masked text that touches no `<*>` is the line's own. Undefined when the template
 * has none (`<*> <*>`). The check for new patterns masks only the lines holding one.
 */
export function templateNeedle(template: string): string | undefined {
  const runs = template.split(/[<*>]+/).filter((run) => run.length > 0);
  return runs.reduce<string | undefined>((longest, run) => (longest === undefined || run.length > longest.length ? run : longest), undefined);
}
