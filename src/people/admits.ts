import type { AccessScope } from '../query/access-scope.js';
import { compileScopeFor } from '../query/compile.js';
import type { LineFilter } from '../store/log-store.js';
import type { GroupAdmits } from '../wire/types.js';

/** How many apps, and how many hosts, an answer names at most. */
export const ADMITS_LIMIT = 100;
const DAY_MS = 86_400_000;

/** The distinct apps and hosts of a filter's lines, most lines first, at most `limit` of each (LogStore.namesByLines). */
export type NamesOfLines = (filter: LineFilter, limit: number) => Promise<GroupAdmits>;

/**
 * The apps and hosts of the organisation's last day of lines that a group's scope lets through,
 * so that whoever saves a group sees what a word match lets in (`app:checkout` also admits
 * `checkout-secrets`). It is a read like any other: held inside the reader's own scope, so a
 * scoped admin learns no name they could not search for.
 */
export function admitsOf(names: NamesOfLines, account: string, scope: AccessScope, reader: AccessScope, now = Date.now()): Promise<GroupAdmits> {
  return names({ account, fromMs: now - DAY_MS, toMs: now, condition: compileScopeFor(scope, reader) }, ADMITS_LIMIT);
}
