import type { QueryError } from './search-status.js';

/** Why the search failed: a caret under the query's position, or the server's message. */
export function QueryErrors({ query, queryError, searchError }: { query: string; queryError: QueryError | null; searchError: string }) {
  return (
    <>
      {searchError && (
        <div className="query-error" role="alert" data-testid="search-error">
          <span>{searchError}</span>
        </div>
      )}
      {queryError && (
        <div id="query-error" className="query-error" role="alert" data-testid="query-error">
          {queryError.position !== undefined && (
            <code>
              {query}
              {'\n'}
              {' '.repeat(queryError.position)}^
            </code>
          )}
          <span>{queryError.message}</span>
        </div>
      )}
    </>
  );
}
