import type { SqlCondition } from '../store/types.js';
import { parseQuery } from './parser.js';
import { toSql } from './to-sql.js';

/**
 * The store's condition for a query text, or undefined when the query matches everything. A query
 * that does not parse throws QueryParseError, which says where and why (the API answers it with a
 * 400, src/http/domain-errors.ts).
 */
export function compileQuery(text: string): SqlCondition | undefined {
  const node = parseQuery(text);
  return node.kind === 'all' ? undefined : toSql(node);
}
