import type { QueryNode } from './ast.js';
import { parseQuery } from './parser.js';

/**
 * One way into a scope. A search alone (a group with no exact lists, and every scope stored before
 * the lists existed), or a search held to exact app and host names: the line's app must be one of
 * `apps` and its host one of `hosts`, where a list is given and not empty. `query: ''` with lists
 * is the lists alone.
 */
export type ScopeEntry = string | { query: string; apps?: string[]; hosts?: string[] };

/**
 * What a person may see of their organisation's lines: the entries of their scoped groups, any of
 * which lets a line through, or null for every line (service keys, and members in no scoped group).
 * Each search is in the viewer's language and was validated when its group was saved. Stored as
 * JSON beside views and restores, so both forms of an entry must keep reading back.
 */
export type AccessScope = readonly ScopeEntry[] | null;

const exact = (field: 'app' | 'host', values: unknown): QueryNode[] =>
  Array.isArray(values) && values.length ? [{ kind: 'in', field, values: values.map(String) }] : [];

/** One entry as a query tree: its search, and its lists, all of which must match. */
export function entryNode(entry: ScopeEntry): QueryNode {
  if (typeof entry === 'string') return parseQuery(entry);
  const search = parseQuery(typeof entry.query === 'string' ? entry.query : '');
  const parts = [...(search.kind === 'all' ? [] : [search]), ...exact('app', entry.apps), ...exact('host', entry.hosts)];
  if (parts.length === 0) return { kind: 'all' };
  return parts.length === 1 ? parts[0] : { kind: 'and', children: parts };
}

/** The scope as a query tree: everything, or the OR of its entries. */
export function scopeNode(scope: AccessScope): QueryNode {
  if (scope === null) return { kind: 'all' };
  if (scope.length === 0) return { kind: 'not', child: { kind: 'all' } }; // no search: no line
  const children = scope.map(entryNode);
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
  return a.length === b.length && a.every((entry, index) => JSON.stringify(entry) === JSON.stringify(b[index]));
}

/**
 * Whether every line `inner` lets through is one `outer` lets through, as far as their searches
 * show without reading lines: `outer` is every line, or each of `inner`'s searches is one of
 * `outer`'s. Conservative: a scope it cannot prove inside is taken as outside.
 */
export function scopeWithin(inner: AccessScope, outer: AccessScope): boolean {
  if (outer === null) return true;
  if (inner === null) return false;
  const held = new Set(outer.map((term) => JSON.stringify(term)));
  return inner.every((term) => held.has(JSON.stringify(term)));
}
