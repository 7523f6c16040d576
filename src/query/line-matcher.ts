import { type AccessScope, withinScope } from './access-scope.js';
import { parseQuery } from './parser.js';
import type { SearchableLine } from './searchable.js';
import { toPredicate } from './to-predicate.js';

/** What a view or a live tail keeps: the saved search's filters (a view's are a superset of these). */
export interface LineFilters {
  query?: string;
  hosts?: string[];
  apps?: string[];
  levels?: string[];
  tags?: string[];
}

/**
 * Which lines belong to a view or a live tail: any of its hosts, any of its apps, any of its levels and any of its
 * tags (an empty filter allows all), and its query, through the search language's in-memory form,
 * which agrees with the SQL the viewer runs; all of it inside the access scope of whoever reads (or
 * saved the view), as compileQuery holds the store's reads.
 */
export function lineMatcher(filters: LineFilters, scope: AccessScope): (line: SearchableLine) => boolean {
  const hosts = filters.hosts?.length ? new Set(filters.hosts) : null;
  const apps = filters.apps?.length ? new Set(filters.apps) : null;
  const levels = filters.levels?.length ? new Set(filters.levels.map((level) => level.toUpperCase())) : null;
  const tags = filters.tags?.length ? new Set(filters.tags) : null;
  const tree = withinScope(parseQuery(filters.query ?? ''), scope);
  const query = tree.kind === 'all' ? null : toPredicate(tree);
  return (line) =>
    (!hosts || hosts.has(line.host)) &&
    (!apps || apps.has(line.app)) &&
    (!levels || levels.has(line.level)) &&
    (!tags || line.tags.some((tag) => tags.has(tag))) &&
    (!query || query(line));
}
