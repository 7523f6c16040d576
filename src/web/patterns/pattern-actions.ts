import type { ExclusionRule, Filters, LogPattern } from '../api-client/client.js';

/**
 * What the Patterns tab does with a pattern, apart from drawing it: the search its "Search" button
 * runs, the exclusion rule its "Exclude" button creates, and the pieces its template is drawn in.
 */

/** The current search narrowed to a pattern's lines: its query ANDed to the search's (kept whole in parentheses). */
export function searchWithPattern(current: string, pattern: Pick<LogPattern, 'query'>): string {
  const query = current.trim();
  if (!query) return pattern.query;
  return `(${query}) ${pattern.query}`;
}

/** An exclusion rule's title has at most this many characters (the API's limit is 512). */
const TITLE_CHARACTERS = 200;

/**
 * The exclusion rule for a pattern's lines within the current search: the pattern's query ANDed
 * to the search's, and the search's apps and hosts. Levels and tags have no place in a rule, so
 * a rule made under a level or tag filter applies to every level and tag. Active at once, but
 * index only: the lines still reach live tail and alerts, only the store skips them.
 */
export function exclusionForPattern(pattern: Pick<LogPattern, 'query' | 'template'>, filters: Pick<Filters, 'q' | 'apps' | 'hosts'>): Omit<ExclusionRule, 'id'> {
  const title = `Pattern: ${pattern.template}`;
  return {
    title: title.length > TITLE_CHARACTERS ? `${title.slice(0, TITLE_CHARACTERS - 1)}…` : title,
    active: true,
    indexonly: true,
    apps: [...filters.apps],
    hosts: [...filters.hosts],
    query: searchWithPattern(filters.q, pattern),
  };
}

/** A template cut into its constant text and its placeholders, for drawing the placeholders apart. */
export function templateParts(template: string): Array<{ text: string; placeholder: boolean }> {
  const parts: Array<{ text: string; placeholder: boolean }> = [];
  template.split('<*>').forEach((text, index) => {
    if (index > 0) parts.push({ text: '<*>', placeholder: true });
    if (text) parts.push({ text, placeholder: false });
  });
  return parts;
}

/** The points of a sparkline of `volume` in a width × height box, the highest bucket at the top. */
export function sparklinePoints(volume: number[], width: number, height: number): string {
  if (volume.length === 0) return '';
  const highest = Math.max(1, ...volume);
  const step = volume.length > 1 ? width / (volume.length - 1) : 0;
  return volume.map((lines, at) => `${round(at * step)},${round(height - (lines / highest) * height)}`).join(' ');
}

const round = (n: number) => Math.round(n * 10) / 10;

/** A share as a percentage: one decimal under 10%, "<0.1%" for a share too small to show. */
export function formatShare(share: number): string {
  if (share > 0 && share < 0.001) return '<0.1%';
  const percent = share * 100;
  return `${percent < 10 ? percent.toFixed(1) : Math.round(percent)}%`;
}
