import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Accounts } from '../config/accounts.js';
import type { Sessions } from '../config/sessions.js';
import { presentedKeys } from './credentials.js';
import { errors } from './errors.js';

export const SESSION_COOKIE = 'logstead_session';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function sameToken(given: unknown, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Who made a request: the organisation, the service key behind it, and the viewer session when the
 * key was presented through one. Anything long-lived that a request opens (a live tail, an e-mailed
 * export link) keeps this, so that revoking the key or the session reaches it.
 */
export interface Principal {
  account: string;
  keyId: string;
  sessionId?: string;
}

/**
 * Who is asking, for every read and configuration API: a service key (servicekey header or query,
 * Basic, or Authorization: Token), or the viewer's session cookie. A request that changes state
 * with a session must also carry its CSRF token in `x-csrf-token`; key-based requests need none,
 * since a browser never adds a key by itself.
 */
export class ServiceAuth {
  constructor(
    private readonly accounts: Accounts,
    private readonly sessions: Sessions,
  ) {}

  /** Whether what a principal opened may go on: its session (if any) is alive and its key live. */
  stillAuthorised(principal: Principal, openedAt?: number): boolean {
    if (principal.sessionId !== undefined) return this.sessions.get(principal.sessionId) !== undefined;
    return this.accounts.keyIsLive(principal.keyId, openedAt);
  }

  account(request: FastifyRequest, options: { changesState?: boolean } = {}): string {
    return this.principal(request, options).account;
  }

  /**
   * The principal of a request. `changesState` marks a GET that does more than read (an export
   * sent by e-mail), so it needs the session's CSRF token like any other write.
   */
  principal(request: FastifyRequest, options: { changesState?: boolean } = {}): Principal {
    const keys = presentedKeys(request, { header: 'servicekey', query: 'servicekey' });
    if (keys.length > 0) {
      const key = keys.length === 1 ? this.accounts.findActiveKey(keys[0], 'service') : null;
      if (!key) throw errors.unauthorized();
      return key;
    }
    const sessionId = request.cookies?.[SESSION_COOKIE];
    const session = sessionId ? this.sessions.get(sessionId) : undefined;
    if (!sessionId || !session) throw errors.unauthorized();
    const changesState = options.changesState === true || !SAFE_METHODS.has(request.method);
    if (changesState && !sameToken(request.headers['x-csrf-token'], session.csrf)) throw errors.csrfMismatch();
    return { account: session.account, keyId: session.keyId, sessionId };
  }
}
