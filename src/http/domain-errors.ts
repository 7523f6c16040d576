import { BadInputError, MissingHostnameError, OverloadedError } from '../lib/ingest-errors.js';
import { QueryParseError } from '../query/parser.js';
import { type ApiError, errors } from './errors.js';

/**
 * The one place domain errors become API answers: each error the domain code throws (query,
 * ingest) gets its body, status and headers from the catalogue (errors.ts). Undefined for any
 * other error, which the caller answers as before.
 */
export function apiErrorForDomain(error: unknown): ApiError | undefined {
  if (error instanceof QueryParseError) return errors.invalidQuery(error.message, error.position, error.expected);
  if (error instanceof MissingHostnameError) return errors.missingHostname();
  if (error instanceof BadInputError) return errors.badRequest();
  if (error instanceof OverloadedError) return errors.overloaded();
  return undefined;
}
