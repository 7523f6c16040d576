import { apiErrorForDomain } from '../http/domain-errors.js';
import { ApiError, errors } from '../http/errors.js';
import type { RejectionReason } from './registry.js';

const BY_STATUS: Record<number, RejectionReason> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  408: 'request_timeout',
  413: 'too_large',
  415: 'unsupported_media_type',
  500: 'internal',
};

// The two 503s of ingestion mean different things to an operator (more capacity, or a sick store),
// so they are told apart by their catalogued text.
const OVERLOADED = errors.overloaded().body.error;
const STORE_UNAVAILABLE = errors.storeUnavailable().body.error;

/** The reason an ingest answer was not 200, from its status and the error that caused it, if any. */
export function rejectionReason(statusCode: number, error: unknown): RejectionReason {
  if (statusCode === 503) {
    const answered = error instanceof ApiError ? error : apiErrorForDomain(error);
    const text = answered?.body.error;
    if (text === OVERLOADED) return 'overloaded';
    if (text === STORE_UNAVAILABLE) return 'store_unavailable';
    return 'unavailable';
  }
  return BY_STATUS[statusCode] ?? 'other';
}
