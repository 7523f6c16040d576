/**
 * The parsed form of a search query (the log viewer's search language, docs/search.md). The parser
 * produces it once; to-sql.ts and to-predicate.ts compile it for the store and for live lines.
 */

/** How a word is compared: '' prefix, '=' case-sensitive prefix, '==' whole word, '===' whole word case-sensitive. */
export type MatchMode = '' | '=' | '==' | '===';

export type CompareOp = '>' | '>=' | '<' | '<=';

/** Where a field search looks. */
export type FieldRef =
  | { kind: 'builtin'; name: 'host' | 'app' | 'level' | 'file' | 'env' | 'tag' }
  | { kind: 'size' }
  | { kind: 'meta'; path: string[] }
  | { kind: 'json'; path: string[] };

export type FieldTest =
  | { kind: 'text'; value: string; mode: MatchMode }
  | { kind: 'exists' }
  | { kind: 'compare'; op: CompareOp; value: number }
  /** `field:=n`: numeric equality on numbers, case-sensitive prefix of the text otherwise. */
  | { kind: 'equals'; value: number; text: string };

export type QueryNode =
  | { kind: 'all' }
  | { kind: 'and'; children: QueryNode[] }
  | { kind: 'or'; children: QueryNode[] }
  | { kind: 'not'; child: QueryNode }
  /** A word or quoted phrase searched in the line and its fields. */
  | { kind: 'text'; value: string; mode: MatchMode }
  | { kind: 'field'; field: FieldRef; test: FieldTest }
  /**
   * The line's app or host is exactly one of `values` (case-sensitive equality, no word match).
   * Never produced by the parser: a group's exact `apps` and `hosts` lists become this
   * (access-scope.ts), as the export filters' lists are compared.
   */
  | { kind: 'in'; field: 'app' | 'host'; values: string[] };
