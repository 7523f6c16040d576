/**
 * Root keys of a JSON line that collide with the viewer's reserved names. Ingest stores them with a
 * leading underscore (`status` becomes `_status`), as Mezmo does, and the query language finds them
 * by either name: both read this one list.
 */
export const RESERVED_JSON_KEYS: readonly string[] = [
  'source', 'type', 'tag', 'auth', 'bytes', 'connect', 'method', 'namespace', 'path', 'pod',
  'request', 'response', 'service', 'space', 'status', 'timestamp', 'user',
];

/** Keys clients may not set: they would impersonate another account or change retention. */
export const PROTECTED_JSON_KEYS: readonly string[] = ['_account', '_retention'];
