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

  /** The session a request was authorised by, if it carried no key; undefined otherwise. */
  sessionOf(request: FastifyRequest): string | undefined {
    if (presentedKeys(request, { header: 'servicekey', query: 'servicekey' }).length > 0) return undefined;
    return request.cookies?.[SESSION_COOKIE];
  }

  /** Whether a session is still signed in (tails opened with one close when it ends). */
  sessionAlive(sessionId: string): boolean {
    return this.sessions.get(sessionId) !== undefined;
  }

  /**
   * The account a request acts for. `changesState` marks a GET that does more than read (an export
   * sent by e-mail), so it needs the session's CSRF token like any other write.
   */
  account(request: FastifyRequest, options: { changesState?: boolean } = {}): string {
    const keys = presentedKeys(request, { header: 'servicekey', query: 'servicekey' });
    if (keys.length > 0) {
      const account = keys.length === 1 ? this.accounts.accountForKey(keys[0], 'service') : null;
      if (!account) throw errors.unauthorized();
      return account;
    }
    const sessionId = request.cookies?.[SESSION_COOKIE];
    const session = sessionId ? this.sessions.get(sessionId) : undefined;
    if (!session) throw errors.unauthorized();
    const changesState = options.changesState === true || !SAFE_METHODS.has(request.method);
    if (changesState && !sameToken(request.headers['x-csrf-token'], session.csrf)) throw errors.csrfMismatch();
    return session.account;
  }
}
