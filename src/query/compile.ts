import type { SqlCondition } from '../store/types.js';
import { type AccessScope, scopeNode, withinScope } from './access-scope.js';
import { parseQuery } from './parser.js';
import { toSql } from './to-sql.js';

/**
 * The store's condition for a query text held inside the reader's access scope, or undefined when
 * together they match everything. A query that does not parse throws QueryParseError, which says
 * where and why (the API answers it with a 400, src/http/domain-errors.ts). The scope is required,
 * so that no read path can forget it: pass null for a reader who sees every line.
 */
export function compileQuery(text: string, scope: AccessScope): SqlCondition | undefined {
  const node = withinScope(parseQuery(text), scope);
  return node.kind === 'all' ? undefined : toSql(node);
}

/**
 * The store's condition for a query held inside every one of several scopes (a view's, and the
 * scope of whoever set one of its targets): what that target may carry.
 */
export function compileQueryWithin(text: string, scopes: AccessScope[]): SqlCondition | undefined {
  const node = scopes.reduce((held, scope) => withinScope(held, scope), parseQuery(text));
  return node.kind === 'all' ? undefined : toSql(node);
}

/**
 * The store's condition for the lines a scope lets through, as a reader sees them (a group's scope
 * shown to the admin who edits it, held inside that admin's own scope), or undefined for every line.
 */
export function compileScopeFor(scope: AccessScope, reader: AccessScope): SqlCondition | undefined {
  const node = withinScope(scopeNode(scope), reader);
  return node.kind === 'all' ? undefined : toSql(node);
}
