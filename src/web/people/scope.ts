import type { ApiErrorBody } from '../api-client/client.js';

/**
 * A group's access scope as the editor holds it: one search per line, where a line passes what
 * any of them matches. The API takes one search or a list of them (clients send either).
 */

/** The searches a stored scope holds, one per line; anything else (an old or odd value) shows as empty. */
export function scopeText(accessScopes: unknown): string {
  if (typeof accessScopes === 'string') return accessScopes;
  if (Array.isArray(accessScopes)) return accessScopes.filter((search): search is string => typeof search === 'string').join('\n');
  return '';
}

/** The searches typed, blank lines dropped. */
export const scopeLines = (text: string): string[] =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

/** What the API is sent: one search as a string (as most clients send it), several as a list. */
export function scopeValue(text: string): string | string[] {
  const lines = scopeLines(text);
  return lines.length === 0 ? '' : lines.length === 1 ? lines[0] : lines;
}

/**
 * One search that matches what the scope lets through, for counting lines with the histogram,
 * and where each of the scope's searches starts in it (to place a parse error on its line).
 */
export function countQuery(text: string): { query: string; starts: number[] } {
  const lines = scopeLines(text);
  if (lines.length <= 1) return { query: lines[0] ?? '', starts: [0] };
  const starts: number[] = [];
  let query = '';
  for (const line of lines) {
    if (query) query += ' OR ';
    starts.push(query.length + 1);
    query += `(${line})`;
  }
  return { query, starts };
}

/** Where a scope does not parse: which of its searches, at which character of it, and why. */
export interface ScopeProblem {
  message: string;
  /** Index among the scope's searches (scopeLines). */
  line?: number;
  position?: number;
}

/** A position in countQuery's query as a search and a character in it. */
export function locate(position: number, starts: number[]): { line: number; position: number } {
  let line = 0;
  while (line + 1 < starts.length && starts[line + 1] <= position) line++;
  return { line, position: Math.max(0, position - starts[line]) };
}

/**
 * A refused save, as the scope editor shows it: the server's message, and (for a search that does
 * not parse) the search it names (`access_scopes[1]`) and the position its message gives.
 */
export function saveProblem(body: ApiErrorBody): ScopeProblem {
  const detail = body.details?.find((item) => item.key?.startsWith('access_scopes'));
  if (!detail) return { message: body.details?.map((item) => item.message).join(' ') || body.error };
  const index = /\[(\d+)\]/.exec(detail.key ?? '');
  const at = /at position (\d+)/.exec(detail.message);
  return { message: detail.message, line: index ? Number(index[1]) : 0, position: at ? Number(at[1]) : undefined };
}

/** A refused count (the histogram parses the scope too): where, in the scope's own lines. */
export function countProblem(body: ApiErrorBody, starts: number[]): ScopeProblem {
  if (body.position === undefined) return { message: body.error };
  return { message: body.error, ...locate(body.position, starts) };
}

/** Exact names (a group's apps or hosts) as typed: separated by commas or line breaks, each once. */
export function namesOf(text: string): string[] {
  return [
    ...new Set(
      text
        .split(/[,\n]/)
        .map((name) => name.trim())
        .filter(Boolean),
    ),
  ];
}

/** A list of names as the editor shows it. */
export const namesText = (names: string[] | undefined): string => (names ?? []).join(', ');
