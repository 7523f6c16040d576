import { ApiError, type Filters } from '../api-client/client.js';

export interface QueryError {
  message: string;
  position?: number;
}

/** Where the search stands: loading, answered, or failed (then its results are stale). */
export interface SearchStatus {
  loading: boolean;
  /** The results on screen are the previous search's: this one failed. */
  stale: boolean;
  /** The filters whose answer is on screen (or whose failure is), so a reader (or a test) knows a search has finished. */
  answered: Filters | null;
  /** A query that does not parse, with where. */
  queryError: QueryError | null;
  /** Any other failure, in words. */
  searchError: string;
  /** Counts the searches that finished with results. */
  serial: number;
}

export type SearchEvent =
  | { kind: 'refused'; filters: Filters; message: string }
  | { kind: 'started' }
  | { kind: 'answered'; filters: Filters }
  | { kind: 'failed'; filters: Filters; error: unknown };

export const IDLE: SearchStatus = { loading: false, stale: false, answered: null, queryError: null, searchError: '', serial: 0 };

export function searchStatus(status: SearchStatus, event: SearchEvent): SearchStatus {
  switch (event.kind) {
    case 'refused':
      // Refused here, unsent: what is on screen stays, marked stale.
      return { ...status, queryError: null, searchError: event.message, stale: true, answered: event.filters };
    case 'started':
      return { ...status, loading: true };
    case 'answered':
      return { loading: false, stale: false, answered: event.filters, queryError: null, searchError: '', serial: status.serial + 1 };
    case 'failed': {
      // The previous results stay, greyed, so the reader keeps their place while fixing the query.
      const failed = { ...status, loading: false, stale: true, answered: event.filters };
      const { error } = event;
      if (error instanceof ApiError && error.body.position !== undefined) {
        return { ...failed, queryError: { message: error.body.expected ? `Expected ${error.body.expected}` : error.body.error, position: error.body.position }, searchError: '' };
      }
      return { ...failed, queryError: null, searchError: error instanceof ApiError ? error.body.error : String(error) };
    }
  }
}
