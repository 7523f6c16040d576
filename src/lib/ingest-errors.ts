/*
 * What ingestion refuses, as domain errors. They say what was wrong for logs and tests; the API's
 * answer for each (status, body, headers) is chosen in one place, src/http/domain-errors.ts, from
 * the error catalogue, so the texts clients match never depend on these messages.
 */

/** A request or line that is not ingestible as sent: the API answers its generic 400 BadRequest. */
export class BadInputError extends Error {}

/** A request that names no hostname, which has a 400 body of its own. */
export class MissingHostnameError extends BadInputError {
  constructor() {
    super('the request names no hostname');
  }
}

/** A request that waited too long for room in the store's queue: to be retried later (a 503). */
export class OverloadedError extends Error {
  constructor(waitedMs: number) {
    super(`ingestion is overloaded: no room for the request within ${waitedMs} ms`);
  }
}
