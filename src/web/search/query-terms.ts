import type { FieldRef, QueryNode } from '../../query/ast.js';
import { parseQuery } from '../../query/parser.js';

/**
 * What the viewer reads out of a query with the server's own parser: the words and phrases to
 * mark in lines, and the field names it searches (for hints).
 */
export interface QueryTerms {
  /** Marks the positive words and phrases; null when there are none. */
  pattern: RegExp | null;
  /** Field names as written (host, meta.user.id, status...), with whether they were negated. */
  fields: string[];
  /** Words holding a `*`, which the language does not treat as a wildcard. */
  wildcards: string[];
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A word starts where the character before it is not an ASCII letter or digit (docs/search.md). */
const START = '(?<![A-Za-z0-9])';
const END = '(?![A-Za-z0-9])';

function fieldName(field: FieldRef): string {
  if (field.kind === 'builtin') return field.name;
  if (field.kind === 'size') return '_mezmo_line_size';
  if (field.kind === 'meta') return `meta.${field.path.join('.')}`;
  return field.path.join('.');
}

export function queryTerms(query: string): QueryTerms {
  const found: QueryTerms = { pattern: null, fields: [], wildcards: [] };
  let tree: QueryNode;
  try {
    tree = parseQuery(query);
  } catch {
    return found;
  }
  const sensitive: string[] = [];
  const insensitive: string[] = [];
  const walk = (node: QueryNode, negated: boolean) => {
    if (node.kind === 'and' || node.kind === 'or') node.children.forEach((child) => walk(child, negated));
    else if (node.kind === 'not') walk(node.child, !negated);
    else if (node.kind === 'field') found.fields.push(fieldName(node.field));
    else if (node.kind === 'text') {
      if (node.value.includes('*')) found.wildcards.push(node.value);
      // Lines without a negated word are shown: it has nothing to mark.
      if (negated || !node.value) return;
      const whole = node.mode === '==' || node.mode === '===';
      const caseSensitive = node.mode === '=' || node.mode === '===';
      // Case-insensitive words fold ASCII letters only, as the search does.
      const value = caseSensitive ? escape(node.value) : escape(node.value).replace(/[A-Za-z]/g, (letter) => `[${letter.toLowerCase()}${letter.toUpperCase()}]`);
      (caseSensitive ? sensitive : insensitive).push(`${START}${value}${whole ? END : ''}`);
    }
  };
  walk(tree, false);
  // Longer terms first, so a phrase is marked whole rather than as its first word.
  const sources = [...insensitive, ...sensitive].sort((a, b) => b.length - a.length);
  found.pattern = sources.length ? new RegExp(sources.join('|'), 'g') : null;
  return found;
}

/**
 * A value as a query term: bare when the language reads it back as the same value, else a quoted
 * phrase (which also matches numbers). A leading < > = - or * would be read as an operator.
 */
export function quote(value: string): string {
  return /^[^\s()"':[\]\\<>=*-][^\s()"':[\]\\]*$/.test(value) && !['AND', 'OR', 'NOT'].includes(value) ? value : `"${value.replace(/["\\]/g, '\\$&')}"`;
}

/** `field:value` for the query, or `-field:value` to leave such lines out. */
export const filterTerm = (field: string, value: string, exclude = false) => `${exclude ? '-' : ''}${field}:${quote(value)}`;

/** The query's top-level pieces (a word, a quoted phrase or a bracketed group each), with where each starts and ends. */
function topLevelPieces(query: string): { text: string; start: number; end: number }[] {
  const pieces: { text: string; start: number; end: number }[] = [];
  let at = 0;
  while (at < query.length) {
    while (at < query.length && /\s/.test(query[at])) at++;
    if (at >= query.length) break;
    const start = at;
    let depth = 0;
    let quoted = false;
    for (; at < query.length; at++) {
      const ch = query[at];
      if (quoted) {
        if (ch === '\\') at++;
        else if (ch === '"') quoted = false;
      } else if (ch === '"') quoted = true;
      else if (ch === '(') depth++;
      else if (ch === ')') depth = Math.max(0, depth - 1);
      else if (depth === 0 && /\s/.test(ch)) break;
    }
    pieces.push({ text: query.slice(start, at), start, end: at });
  }
  return pieces;
}

/**
 * The query after a filter-for (or filter-out, `exclude`) of field:value. The opposite term, when
 * the query holds it at the top level (`-status:404`, `NOT status:404` or `status:404`), is replaced
 * rather than kept beside the new one, which would match nothing; a term already there is not added
 * twice. Terms joined by OR are left alone, as replacing one would change what the other means.
 */
export function withFilter(query: string, field: string, value: string, exclude = false): string {
  const term = filterTerm(field, value, exclude);
  const positive = filterTerm(field, value);
  const pieces = topLevelPieces(query);
  const besideOr = (index: number, length: number) => pieces[index - 1]?.text === 'OR' || pieces[index + length]?.text === 'OR';
  for (let index = 0; index < pieces.length; index++) {
    const piece = pieces[index].text;
    const bareNegation = piece === `-${positive}`;
    const wordNegation = piece === 'NOT' && pieces[index + 1]?.text === positive;
    const length = wordNegation ? 2 : 1;
    const negated = bareNegation || wordNegation;
    if (!negated && piece !== positive) continue;
    // NOT's operand alone is not a positive term.
    if (!negated && pieces[index - 1]?.text === 'NOT') continue;
    if (besideOr(index, length)) continue;
    if (negated === exclude) return query;
    const last = pieces[index + length - 1];
    return `${query.slice(0, pieces[index].start)}${term}${query.slice(last.end)}`;
  }
  return query.trim() ? `${query.trim()} ${term}` : term;
}
