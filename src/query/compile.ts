import { errors } from '../http/errors.js';
import type { QueryNode } from './ast.js';
import { QueryParseError, parseQuery } from './parser.js';
import type { SqlCondition } from '../store/types.js';
import { toSql } from './to-sql.js';

/** Parses a query from an API request, turning a syntax error into a 400 that says where and why. */
export function parseRequestQuery(text: string): QueryNode {
  try {
    return parseQuery(text);
  } catch (error) {
    if (error instanceof QueryParseError) throw errors.invalidQuery(error.message, error.position, error.expected);
    throw error;
  }
}

/** The store's condition for a query text, or undefined when the query matches everything. */
export function compileQuery(text: string): SqlCondition | undefined {
  const node = parseRequestQuery(text);
  return node.kind === 'all' ? undefined : toSql(node);
}
