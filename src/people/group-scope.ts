import type { AccessScope, ScopeEntry } from '../query/access-scope.js';

/** A group's scope as stored: its searches as the client gave them, and its exact lists, as JSON. */
export interface StoredGroupScope {
  access_scopes: string;
  apps: string;
  hosts: string;
}

/** A group's scope as its answers show it: the searches as the client gave them, and the lists. */
export interface GroupScope {
  access_scopes: unknown;
  apps: string[];
  hosts: string[];
}

/**
 * The searches a group's access scope holds: clients send one search or a list of them; empty
 * searches limit nothing, so a group of only those is not a scoped group.
 */
export const scopeSearches = (stored: string): string[] => searchesOf(JSON.parse(stored));

function searchesOf(value: unknown): string[] {
  return [value]
    .flat()
    .filter((search): search is string => typeof search === 'string')
    .map((search) => search.trim())
    .filter(Boolean);
}

/** A stored list of exact names; anything but a JSON array of strings limits nothing. */
export function storedList(stored: string | null | undefined): string[] {
  const value = stored ? (JSON.parse(stored) as unknown) : [];
  return Array.isArray(value) ? value.filter((name): name is string => typeof name === 'string' && name !== '') : [];
}

export const storedScope = (row: StoredGroupScope): GroupScope => ({ access_scopes: JSON.parse(row.access_scopes), apps: storedList(row.apps), hosts: storedList(row.hosts) });

/**
 * The entries a group adds to its members' scope (query/access-scope.ts), none when it limits
 * nothing: its searches as they are, or, with exact lists, each search held to them (one entry of
 * the lists alone when it has no search). A group's scope is its searches' OR, ANDed with the lists.
 */
export function groupEntries(group: GroupScope): ScopeEntry[] {
  const searches = searchesOf(group.access_scopes);
  const { apps, hosts } = group;
  if (apps.length === 0 && hosts.length === 0) return searches;
  const lists = { ...(apps.length ? { apps } : {}), ...(hosts.length ? { hosts } : {}) };
  return (searches.length ? searches : ['']).map((query) => ({ query, ...lists }));
}


/** The lines one group lets through, as an access scope (null: every line). */
export function groupScope(group: GroupScope): AccessScope {
  const entries = groupEntries(group);
  return entries.length ? entries : null;
}
