import type { QueryNode } from './ast.js';
import { parseQuery } from './parser.js';

/**
 * What a person may see of their organisation's lines: the searches of their scoped groups, any of
 * which lets a line through, or null for every line (service keys, and members in no scoped group).
 * Each search is in the viewer's language and was validated when its group was saved.
 */
export type AccessScope = readonly string[] | null;

/** The scope as a query tree: everything, or the OR of its searches. */
export function scopeNode(scope: AccessScope): QueryNode {
  if (scope === null) return { kind: 'all' };
  if (scope.length === 0) return { kind: 'not', child: { kind: 'all' } }; // no search: no line
  const children = scope.map((search) => parseQuery(search));
  if (children.some((child) => child.kind === 'all')) return { kind: 'all' };
  return children.length === 1 ? children[0] : { kind: 'or', children };
}

/**
 * Whether a scope lets every line through (null, or a search that matches everything): such a
 * reader may be told organisation-wide figures, as an unscoped one is.
 */
export function seesEveryLine(scope: AccessScope): boolean {
  return scopeNode(scope).kind === 'all';
}

/**
 * A query held inside a scope: both must match. Both compilations (SQL for the store, the
 * predicate for live lines) take this one tree, so the scope means the same on every read path.
 */
export function withinScope(query: QueryNode, scope: AccessScope): QueryNode {
  const limit = scopeNode(scope);
  if (limit.kind === 'all') return query;
  if (query.kind === 'all') return limit;
  return { kind: 'and', children: [query, limit] };
}

/** Whether two scopes are the same (so an open tail knows when to rebuild its matcher). */
export function sameScope(a: AccessScope, b: AccessScope): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((search, index) => search === b[index]);
}
