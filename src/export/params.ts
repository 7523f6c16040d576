import { type QueryParams, choiceParam, countParam, parseLineFilter } from '../http/filter-params.js';
import type { AccessScope } from '../query/access-scope.js';
import type { LineFilter } from '../store/log-store.js';

/** Most lines one export (or one v2 page) returns. */
export const MAX_EXPORT_LINES = 10_000;

export interface ExportRequest {
  filter: Omit<LineFilter, 'account'>;
  size: number;
  prefer: 'head' | 'tail';
}

/** Reads the parameters shared by /v1/export and /v2/export (the legacy CLI sends `q` for `query`), inside the reader's scope. */
export function parseExportRequest(query: QueryParams, scope: AccessScope): ExportRequest {
  const filter = parseLineFilter(query, scope);
  const size = countParam(query, 'size', MAX_EXPORT_LINES, MAX_EXPORT_LINES);
  const prefer = choiceParam(query, 'prefer', ['head', 'tail'], 'tail');
  return { filter, size, prefer };
}
