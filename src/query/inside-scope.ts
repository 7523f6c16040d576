import { isDeepStrictEqual } from 'node:util';
import type { QueryNode } from './ast.js';
import { type AccessScope, entryNode, seesEveryLine } from './access-scope.js';
import { parseQuery } from './parser.js';
import type { SearchableLine } from './searchable.js';
import { toPredicate } from './to-predicate.js';

/** A filter that chooses lines by name and search, as an exclusion rule does (each list: any of it; empty: any). */
export interface NamedFilter {
  apps: readonly string[];
  hosts: readonly string[];
  query: string;
}

type NameField = 'app' | 'host';

/** The name fields a search looks at, when it looks at nothing else (every leaf a test of app or host); else null. */
function nameFieldsOnly(node: QueryNode, into: Set<NameField>): boolean {
  switch (node.kind) {
    case 'and':
    case 'or':
      return node.children.every((child) => nameFieldsOnly(child, into));
    case 'not':
      return nameFieldsOnly(node.child, into);
    case 'in':
      into.add(node.field);
      return true;
    case 'field':
      if (node.field.kind !== 'builtin' || (node.field.name !== 'app' && node.field.name !== 'host')) return false;
      into.add(node.field.name);
      return true;
    default:
      return false;
  }
}

/** The conjuncts of a tree: its AND's children, flattened; the tree itself otherwise. */
function conjuncts(node: QueryNode): QueryNode[] {
  return node.kind === 'and' ? node.children.flatMap(conjuncts) : [node];
}

/** A line with only these names set: what a search of names alone decides from. */
const nameOnlyLine = (app: string, host: string): SearchableLine => ({ line: '', host, app, level: '', file: '', env: '', tags: [], meta: '', meta_indexed: false, fields: '', size: 0 });

/**
 * Whether every line a filter lets through is provably inside an access scope, so that counts of
 * those lines (an exclusion rule's) tell a scoped reader only of lines they could read. Sound, not
 * complete: "no" where it cannot be shown. It holds when:
 * - the scope lets every line through; or
 * - the filter's query is one of the scope's searches, or an AND of terms with one of them among
 *   its terms (the filter's lines then match that search); or
 * - every app and host the filter names passes a search of the scope that looks at nothing but the
 *   app and the host (such as `app:billing`, `app:billing OR host:web1`, `-app:payroll`), decided
 *   by the same predicate live tail uses, on each app (and host) the filter names. A search that
 *   looks at the host needs the filter to name its hosts, and one that looks at the app its apps:
 *   a filter naming no apps lets through lines of any app.
 * The scope's searches are word matches (`app:checkout` lets `checkout-secrets` through), and are
 * tested as such; a filter's apps and hosts are exact names (the rule's lists).
 */
export function filterInsideScope(filter: NamedFilter, scope: AccessScope): boolean {
  if (seesEveryLine(scope)) return true;
  const searches = (scope ?? []).map(entryNode);
  if (searches.length === 0) return false;

  const query = parseQuery(filter.query);
  const terms = conjuncts(query);
  if (query.kind !== 'all' && searches.some((search) => isDeepStrictEqual(search, query) || terms.some((term) => isDeepStrictEqual(term, search)))) return true;

  const byName = searches.flatMap((search) => {
    const fields = new Set<NameField>();
    return nameFieldsOnly(search, fields) ? [{ fields, admits: toPredicate(search) }] : [];
  });
  if (byName.length === 0) return false;
  // undefined: the filter names none, so its lines may have any.
  const apps: Array<string | undefined> = filter.apps.length ? [...new Set(filter.apps)] : [undefined];
  const hosts: Array<string | undefined> = filter.hosts.length ? [...new Set(filter.hosts)] : [undefined];
  return apps.every((app) =>
    hosts.every((host) =>
      byName.some(({ fields, admits }) => (!fields.has('app') || app !== undefined) && (!fields.has('host') || host !== undefined) && admits(nameOnlyLine(app ?? '', host ?? ''))),
    ),
  );
}
