/**
 * The one catalogue of error bodies the API returns. Clients match on these exact strings
 * (spec §7, compat reference §2.9 and §3), so every error response is built from here.
 */

export interface ErrorBody {
  error: string;
  code?: string;
  status?: string;
  [extra: string]: unknown;
}

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: ErrorBody,
    /** Headers the answer carries, such as Retry-After on a 503. */
    readonly headers: Record<string, string> = {},
    /** Answered as `text/plain`, the body's `error` alone, for protocols whose errors are text (Loki's). */
    readonly plainText = false,
  ) {
    super(body.error);
  }
}

/** Seconds a client is told to wait before retrying a 503: a burst usually clears in a few. */
const RETRY_AFTER_SECONDS = '5';

const envelope = (error: string, code: string): ErrorBody => ({ error, code, status: 'error' });

export const errors = {
  // Ingestion: the spec's exact bodies.
  badRequest: () => new ApiError(400, envelope('Bad or missing parameters.', 'BadRequest')),
  missingHostname: () => new ApiError(400, { error: 'Missing param hostname.' }),
  missingCredentials: () => new ApiError(401, { error: 'Missing Credentials' }),
  accountNotFound: () => new ApiError(403, { error: 'Account not found or inactive' }),
  /** Ingestion suspended (POST /v1/config/ingestion/suspend): Mezmo answers a suspended account's ingestion so. */
  ingestionSuspended: () => new ApiError(403, { error: 'Account not found or inactive' }),
  /** A service key sent to ingest: the usual mistake, so it is named rather than "not found". */
  serviceKeyForIngest: () =>
    new ApiError(
      401,
      envelope('This is a service key, which reads and configures; ingestion needs an ingestion key (GET /v1/config/keys?type=ingestion lists them).', 'Unauthorized'),
    ),
  // Spec §5.1 allows one method per request; the same key sent twice (SDKs do) is still one key.
  conflictingCredentials: () =>
    new ApiError(
      401,
      envelope('Send one ingestion key per request: this request carries different keys (apikey header, Basic auth, Authorization: Token, apikey parameter or body).', 'Unauthorized'),
    ),

  // Limits and overload, with the same envelope as BadRequest so clients can read `error`.
  payloadTooLarge: () =>
    new ApiError(413, envelope('Request body is larger than the 10 MB limit (after decompression).', 'PayloadTooLarge')),
  storedTooLarge: () =>
    new ApiError(
      413,
      envelope('The lines of this request take more than 64 MB once each carries the request\'s hostname and tags; send fewer lines per request.', 'PayloadTooLarge'),
    ),
  bodyTooLarge: () => new ApiError(413, envelope('Request body is larger than the 1 MB limit of this API.', 'PayloadTooLarge')),
  unsupportedMediaType: () => new ApiError(415, envelope('Send the body as JSON (Content-Type: application/json).', 'UnsupportedMediaType')),
  /** An OTLP request that is not OTLP as sent (a body that does not decode, a bad id, time or value): what was wrong. */
  otlpNotOtlp: (reason: string) => new ApiError(400, envelope(`Not an OTLP logs request: ${reason}.`, 'BadRequest')),
  /** OTLP/HTTP (POST /v1/logs) reads its two encodings only. */
  otlpUnsupportedMediaType: () =>
    new ApiError(415, envelope('Send OTLP logs as protobuf (Content-Type: application/x-protobuf) or JSON (Content-Type: application/json).', 'UnsupportedMediaType')),
  // 503 rather than 429: the Node SDK drops a batch on 429 but retries 503 (real-clients §4).
  overloaded: () =>
    new ApiError(503, envelope('Ingestion is overloaded; retry the request later.', 'ServiceUnavailable'), { 'retry-after': RETRY_AFTER_SECONDS }),
  storeUnavailable: () =>
    new ApiError(503, envelope('The log store could not write this batch; retry the request later.', 'ServiceUnavailable'), { 'retry-after': RETRY_AFTER_SECONDS }),
  // Requests Node's HTTP parser refuses before any route runs (see client-errors.ts).
  headersTooLarge: () => new ApiError(431, envelope('The request line and headers are larger than the 128 KiB limit.', 'HeadersTooLarge')),
  requestTimeout: () => new ApiError(408, envelope('The request was not received in time.', 'RequestTimeout')),
  shuttingDown: () =>
    new ApiError(503, envelope('The server is shutting down; retry the request later.', 'ServiceUnavailable'), { 'retry-after': RETRY_AFTER_SECONDS }),
  /** /healthz until every subsystem has started. */
  starting: () => new ApiError(503, envelope('The server is still starting; retry shortly.', 'ServiceUnavailable'), { 'retry-after': '1' }),

  // Export and configuration.
  unauthorized: () =>
    new ApiError(401, envelope('Unauthorized: send a valid service key (servicekey header, Basic auth or Authorization: Token).', 'Unauthorized')),
  metricsUnauthorized: () =>
    new ApiError(401, envelope('Unauthorized: send the metrics key (LOGSTEAD_METRICS_KEY) as ?key= or Authorization: Bearer.', 'Unauthorized'), {
      'www-authenticate': 'Bearer realm="metrics"',
    }),
  /** A member whose role is below what the route needs (src/http/permissions.ts). */
  roleForbidden: (role: string, needed: string) =>
    new ApiError(403, envelope(`Forbidden: your role (${role}) may not do this; it needs the ${needed} role or above.`, 'Forbidden')),
  /**
   * A listing that cannot be cut down to the member's access scope (it records or counts the whole
   * organisation), or a target that would carry lines past it, refused to a member with one; the
   * message names the scope's searches.
   */
  scopeForbidden: (scope: readonly unknown[], what: string) =>
    new ApiError(
      403,
      envelope(`Forbidden: your access scope (${scope.map((search) => JSON.stringify(search)).join(' OR ') || 'no search'}) limits what you may read, and ${what}.`, 'Forbidden'),
    ),
  wrongPassword: () => new ApiError(401, envelope('Wrong e-mail or password.', 'Unauthorized')),
  keySignInOff: () =>
    new ApiError(403, envelope('Signing in with a service key is turned off here (LOGSTEAD_KEY_SIGN_IN=false); sign in with your e-mail and password, or single sign-on.', 'Forbidden')),
  csrfMismatch: () => new ApiError(403, envelope('Missing or wrong x-csrf-token for this session.', 'Forbidden')),
  /** A page on another site tried to use the viewer's session (WebSockets are not bound by CORS). */
  foreignOrigin: () => new ApiError(403, envelope('This Origin may not use the viewer session; only pages served by this server may.', 'Forbidden')),
  /** Sign-in is refused for a while after too many wrong keys; Retry-After says how long. */
  tooManySignIns: (retryAfterSeconds: number) =>
    new ApiError(429, { ...envelope(`Too many failed sign-ins; retry in ${retryAfterSeconds} s.`, 'TooManyRequests'), retryAfter: retryAfterSeconds }),
  invalidParameter: (message: string) => new ApiError(400, envelope(message, 'BadRequest')),
  /** A pattern test while the organisation's parsing rules have spent this second's share of time. */
  parsingTimeSpent: () =>
    new ApiError(
      429,
      envelope("The organisation's parsing rules have used their share of time this second; try the pattern again in a moment.", 'TooManyRequests'),
      { 'retry-after': '1' },
    ),
  /** The one text for a time range that ends before it starts, on every read route. */
  reversedTimeRange: () => new ApiError(400, envelope('The time range is reversed: "from" must not be later than "to".', 'BadRequest')),
  /** A search query that does not parse: where, and what was expected there. */
  invalidQuery: (message: string, position: number, expected: string) =>
    new ApiError(400, { ...envelope(message, 'BadRequest'), position, expected }),
  notFound: (message = 'Resource Not Found') => new ApiError(404, envelope(message, 'NotFound')),
  internal: () => new ApiError(500, envelope('Internal server error.', 'InternalError')),
  // The owner-only control socket (http/control-socket.ts, answered by backup/start.ts): the operator reads these, so they say what happened.
  backupRefused: (message: string) => new ApiError(409, envelope(message, 'Conflict')),
  backupFailed: (message: string) => new ApiError(500, envelope(`The backup failed: ${message}`, 'BackupFailed')),

  // Configuration API (compat reference §5): Joi-style validation envelope and Mezmo's texts.
  /** `key` and `message` are Joi's, as Mezmo clients read them; `field` names the field in words for a form. */
  validationFailed: (details: Array<{ message: string; key: string; field: string }>) =>
    new ApiError(400, { details, ...envelope(details.map((detail) => detail.message).join('. '), 'BadRequest') }),
  nothingToConfigure: () => new ApiError(400, envelope('Nothing to configure', 'BadRequest')),
  invalidCategories: (names: string[]) => new ApiError(400, envelope(`Invalid category name(s): ${names.join(', ')}`, 'BadRequest')),
  conflict: (message: string) => new ApiError(409, envelope(message, 'Conflict')),
  /**
   * A change that would leave members in no scoped group, so that they see every line (deleting a
   * group, taking a member out of their last scoped group, a group's scope removed): refused unless
   * asked for with ?widen=true. `members` names them, for a confirmation to show.
   */
  accessWidens: (members: string[]) =>
    new ApiError(409, {
      ...envelope(
        `This change would let ${members.length === 1 ? 'a member' : `${members.length} members`} see every line of the organisation, as they would be in no scoped group: ${members.join(', ')}. Send it again with ?widen=true to allow it.`,
        'Conflict',
      ),
      members,
    }),
  /** An organisation at its limit of a kind of rule (exclusion rules). */
  tooManyRules: (message: string) => new ApiError(400, envelope(message, 'BadRequest')),
  /** POST /v1/config/ingestion/suspend/confirm with a token that is not the last one handed out, or has expired. */
  wrongSuspendToken: () => {
    const message = 'The token is not valid: it was not handed out by POST /v1/config/ingestion/suspend, was already used, or has expired (10 minutes). Nothing was changed.';
    return new ApiError(400, { details: [{ message, key: 'token', field: 'Token' }], ...envelope(message, 'BadRequest') });
  },

  // Archiving (src/archive): what an admin configuring a bucket needs to fix.
  archiveUnsupportedIntegration: (integration: string) =>
    new ApiError(400, envelope(`Archiving to "${integration}" is not supported; Logstead archives to S3-compatible stores: integration s3, ibm or dos.`, 'BadRequest')),
  archiveCheckFailed: (detail: string) =>
    new ApiError(400, envelope(`The archive store refused a test write (an object written and deleted again): ${detail}. Nothing was saved.`, 'BadRequest')),
  archivePrivateEndpoint: (host: string) =>
    new ApiError(400, envelope(`The endpoint ${host} is an internal (loopback, private or reserved) address, which this server does not archive to (LOGSTEAD_ALLOW_PRIVATE_ARCHIVES=false).`, 'BadRequest')),
  archiveNeedsSecretKey: () =>
    new ApiError(400, envelope('Archiving stores a secret key, which every node sharing this configuration database must be able to open: set the same LOGSTEAD_SECRET_KEY on every node first. Nothing was saved.', 'BadRequest')),
  archiveNotConfigured: () => new ApiError(404, envelope('Archiving is not configured for this organisation.', 'NotFound')),
  archiveReadFailed: (detail: string) => new ApiError(502, envelope(`The archive bucket could not be read: ${detail}`, 'BadGateway')),
  restoreNotFound: () => new ApiError(404, envelope('No such restore.', 'NotFound')),
  restoreFinished: (status: string) => new ApiError(409, envelope(`This restore has already finished (${status}); only a running restore can be cancelled.`, 'Conflict')),
  archiveConfigured: () => new ApiError(409, envelope('Archiving is already configured for this organisation; PUT changes it, DELETE ends it.', 'Conflict')),

  // Export download links.
  downloadForbidden: () => new ApiError(403, envelope('This download link is not valid.', 'Forbidden')),
  /** A one-time link (invitation, password reset) that was used or has expired. */
  linkGone: (message: string) => new ApiError(410, envelope(message, 'Gone')),
  downloadExpired: () => new ApiError(410, envelope('This download link has expired; export the lines again.', 'Gone')),

  // Single sign-on (src/people/sso): a person reads these on a page after the identity provider
  // sent them back, so each says what went wrong and that nobody was signed in.
  ssoNotConfigured: () =>
    new ApiError(404, envelope('Single sign-on is not configured on this server (LOGSTEAD_OIDC_ISSUER is not set); sign in with your e-mail and password.', 'NotFound')),
  ssoProviderUnreachable: (issuer: string) =>
    new ApiError(502, envelope(`The identity provider (${issuer}) could not be reached or did not answer as an OpenID provider; try again later, or ask an admin to check LOGSTEAD_OIDC_ISSUER.`, 'BadGateway')),
  ssoAttemptUnknown: () =>
    new ApiError(
      400,
      envelope(
        'This sign-in was not started in this browser, or it was already used, or it is older than 10 minutes. Nobody was signed in; start again from the sign-in page.',
        'BadRequest',
      ),
    ),
  ssoStateMismatch: () =>
    new ApiError(400, envelope('The answer from the identity provider does not belong to the sign-in this browser started (state mismatch). Nobody was signed in.', 'BadRequest')),
  ssoNonceMismatch: () =>
    new ApiError(401, envelope('The ID token does not belong to the sign-in this browser started (nonce mismatch). Nobody was signed in.', 'Unauthorized')),
  ssoIssuerMismatch: () =>
    new ApiError(401, envelope('The answer came from another identity provider than the one this server trusts (issuer mismatch). Nobody was signed in.', 'Unauthorized')),
  ssoAudienceMismatch: () =>
    new ApiError(401, envelope('The ID token was issued for another application, not for this server (audience mismatch). Nobody was signed in.', 'Unauthorized')),
  /** A check of the provider's answer that has no words of its own; `detail` is openid-client's. */
  ssoCheckFailed: (detail: string) =>
    new ApiError(401, envelope(`The identity provider's answer failed a check (${detail}). Nobody was signed in.`, 'Unauthorized')),
  /** The provider sent the person back with an error (they cancelled, or it refused them). */
  ssoProviderRefused: (error: string, description: string | undefined) =>
    new ApiError(401, envelope(`The identity provider did not sign you in (${error}${description ? `: ${description}` : ''}). Nobody was signed in.`, 'Unauthorized')),
  /** The provider would not exchange the sign-in code for tokens (used, expired, or issued to another client). */
  ssoCodeRefused: (error: string, description: string | undefined) =>
    new ApiError(401, envelope(`The identity provider refused this sign-in's code (${error}${description ? `: ${description}` : ''}). Nobody was signed in; start again.`, 'Unauthorized')),
  ssoEmailMissing: () =>
    new ApiError(403, envelope('The identity provider did not give an e-mail address for your account, and Logstead knows its people by e-mail. Nobody was signed in.', 'Forbidden')),
  ssoEmailUnverified: (email: string) =>
    new ApiError(403, envelope(`The identity provider says ${email} is not verified; verify it there, then sign in again. Nobody was signed in.`, 'Forbidden')),
  ssoNotAllowed: (email: string) =>
    new ApiError(
      403,
      envelope(`${email} is not a member of any organisation here, and its domain is not one whose people may join by themselves (LOGSTEAD_OIDC_DOMAINS). Ask an admin to invite you.`, 'Forbidden'),
    ),
  ssoNoOrganisation: (account: string) =>
    new ApiError(403, envelope(`New people would join the organisation "${account}" (LOGSTEAD_OIDC_ACCOUNT), but it does not exist or is not active. Ask an admin to fix the setting.`, 'Forbidden')),
} as const;

/**
 * Errors of the Loki push API (src/ingest/loki), in Loki's dialect: a plain text body and the
 * status Loki gives, which Promtail, Alloy, Fluent Bit, Vector and the Docker plugin log as they
 * are and retry on 429 and 5xx only.
 */
const lokiText = (status: number, text: string, headers: Record<string, string> = {}) => new ApiError(status, { error: text }, headers, true);
export const lokiErrors = {
  /** A request that does not parse or holds a malformed stream: nothing of it is stored. */
  badRequest: (message: string) => lokiText(400, message),
  noLabels: () => lokiText(400, 'error at least one label pair is required per stream'),
  unauthorized: () =>
    lokiText(401, 'unauthorized: send an ingestion key as Basic auth (user or password), Authorization: Bearer, or the apikey header'),
  conflictingCredentials: () => lokiText(401, 'unauthorized: this request carries different ingestion keys; send one'),
  serviceKey: () => lokiText(401, 'unauthorized: this is a service key, which reads and configures; pushing needs an ingestion key'),
  suspended: () => lokiText(403, 'forbidden: ingestion is suspended for this organisation (POST /v1/config/ingestion/resume resumes it)'),
  orgMismatch: () => lokiText(401, 'unauthorized: X-Scope-OrgID does not name the organisation of this ingestion key'),
  tooLarge: () => lokiText(413, 'request body too large: the limit is 10 MB after decompression'),
  storedTooLarge: () =>
    lokiText(413, "request too large: its lines take more than 64 MB once each carries the stream's labels; send fewer lines per request"),
  unsupportedMediaType: (what: string) => lokiText(415, `unsupported ${what}: send application/x-protobuf (snappy) or application/json, gzip or not`),
  unavailable: (message: string) => lokiText(503, message, { 'retry-after': RETRY_AFTER_SECONDS }),
  internal: () => lokiText(500, 'internal server error'),
} as const;

/**
 * Texts of the `warnings` an ingest response may carry beside `{"status":"ok"}`. Mezmo clients
 * ignore fields they do not know, so a warning never turns an accepted batch into a failure.
 */
export const ingestWarnings = {
  metaFieldCap: (lines: number, limit: number) =>
    `The organisation has indexed its ${limit} new meta fields for today (LOGSTEAD_MAX_META_FIELDS_PER_DAY); ` +
    `${lines} line(s) of this request were stored with their meta kept as text, not indexed as fields. ` +
    'See GET /v1/config/meta-fields.',
} as const;

/**
 * Elasticsearch's dialect, for the bulk API and the calls shippers make first
 * (src/ingest/elasticsearch): its clients read `error.type` and `error.reason` from
 * `{"error":{"root_cause":[{type,reason}],type,reason},"status":N}`. An ElasticError is an ApiError
 * too, with the catalogue's envelope as its body, so any other handler still renders it sensibly.
 */
export interface ElasticErrorBody {
  error: { root_cause: Array<{ type: string; reason: string }>; type: string; reason: string };
  status: number;
}

export class ElasticError extends ApiError {
  readonly elasticBody: ElasticErrorBody;
  constructor(statusCode: number, type: string, reason: string, headers: Record<string, string> = {}) {
    super(statusCode, envelope(reason, type), headers);
    this.elasticBody = { error: { root_cause: [{ type, reason }], type, reason }, status: statusCode };
  }
}

/** What Elasticsearch answers a request without (good) credentials with: the schemes it takes. */
const ELASTIC_CHALLENGE = { 'www-authenticate': 'Basic realm="logstead" charset="UTF-8", ApiKey, Bearer realm="logstead"' };

export const elasticErrors = {
  missingCredentials: (path: string) =>
    new ElasticError(
      401,
      'security_exception',
      `missing authentication credentials for REST request [${path}]: send the ingestion key as Basic auth (user or password), ApiKey, Bearer or the apikey header`,
      ELASTIC_CHALLENGE,
    ),
  wrongCredentials: () => new ElasticError(401, 'security_exception', 'unable to authenticate with provided credentials: no organisation has this ingestion key', ELASTIC_CHALLENGE),
  serviceKey: () =>
    new ElasticError(401, 'security_exception', 'this is a service key, which reads and configures; the bulk API needs an ingestion key', ELASTIC_CHALLENGE),
  conflictingCredentials: () => new ElasticError(401, 'security_exception', 'send one ingestion key per request: this request carries different keys', ELASTIC_CHALLENGE),
  /** A body that is not newline-delimited JSON of action and document lines: nothing of it is stored. */
  malformedBulk: (reason: string) => new ElasticError(400, 'parse_exception', `${reason}; nothing of this request was stored`),
  invalidRequest: (reason: string) => new ElasticError(400, 'action_request_validation_exception', `Validation Failed: 1: ${reason};`),
  invalidIndexName: (index: string) => new ElasticError(400, 'invalid_index_name_exception', `Invalid index name [${index}], must not start with '_'`),
  /** Logstead keeps no templates, policies or pipelines: asked for one, it has none (shippers then PUT theirs, which is accepted). */
  resourceNotFound: (what: string) => new ElasticError(404, 'resource_not_found_exception', `${what} is not kept by Logstead (it accepts and ignores it)`),
  /** Any other refusal (limits, overload, a corrupt gzip body), in Elasticsearch's shape with the catalogue's status and text. */
  fromApiError: (error: ApiError): ElasticError => {
    if (error instanceof ElasticError) return error;
    const type: Record<number, string> = { 400: 'parse_exception', 401: 'security_exception', 403: 'security_exception', 404: 'resource_not_found_exception', 408: 'timeout_exception', 413: 'content_too_long_exception', 429: 'es_rejected_execution_exception', 503: 'unavailable_shards_exception' };
    const headers = error.statusCode === 401 ? { ...ELASTIC_CHALLENGE, ...error.headers } : error.headers;
    return new ElasticError(error.statusCode, type[error.statusCode] ?? 'exception', String(error.body.error), headers);
  },
} as const;

/** An item of a bulk request that is answered with an error of its own while the others are stored. */
export const elasticItemErrors = {
  unsupportedAction: (action: string) => ({
    type: 'illegal_argument_exception',
    reason: `Logstead stores log lines: the bulk action [${action}] is not supported (only index and create are)`,
  }),
} as const;
