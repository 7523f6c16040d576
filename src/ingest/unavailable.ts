import { ApiError } from '../http/errors.js';
import { isDatabaseUnavailable } from '../repository/unavailable.js';
import { OverloadedError } from '../lib/ingest-errors.js';

/**
 * Whether a failure to store lines says that something they need is away or full for now, so the
 * same write may succeed later: the store's queue full (OverloadedError, or the 503 or 429 the HTTP
 * path answers it with), the log store failing a write (the intake's 503), the configuration
 * database unreachable. Anything else (a bug, input no retry changes) is not retried.
 */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof OverloadedError) return true;
  if (error instanceof ApiError) return error.statusCode === 503 || error.statusCode === 429;
  return isDatabaseUnavailable(error);
}
