import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
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

/** Where keys are looked up (the configuration's accounts); declared here so http depends on no store. */
export interface KeyDirectory {
  findActiveKey(key: string, type: 'service'): Promise<{ account: string; keyId: string } | null>;
  keyIsLive(keyId: string, openedAt?: number): Promise<boolean>;
}

/** Where viewer sessions are looked up. */
export interface SessionDirectory {
  get(id: string): Promise<{ account: string; keyId: string; csrf: string } | undefined>;
}

/**
 * Who is asking, for every read and configuration API: a service key (servicekey header or query,
 * Basic, or Authorization: Token), or the viewer's session cookie. A request that changes state
 * with a session must also carry its CSRF token in `x-csrf-token`; key-based requests need none,
 * since a browser never adds a key by itself.
 */
export class ServiceAuth {
  constructor(
    private readonly accounts: KeyDirectory,
    private readonly sessions: SessionDirectory,
  ) {}

  /** Whether what a principal opened may go on: its session (if any) is alive and its key live. */
  async stillAuthorised(principal: Principal, openedAt?: number): Promise<boolean> {
    if (principal.sessionId !== undefined) return (await this.sessions.get(principal.sessionId)) !== undefined;
    return this.accounts.keyIsLive(principal.keyId, openedAt);
  }

  async account(request: FastifyRequest, options: { changesState?: boolean } = {}): Promise<string> {
    return (await this.principal(request, options)).account;
  }

  /**
   * The principal of a request. `changesState` marks a GET that does more than read (an export
   * sent by e-mail), so it needs the session's CSRF token like any other write.
   */
  async principal(request: FastifyRequest, options: { changesState?: boolean } = {}): Promise<Principal> {
    const keys = presentedKeys(request, { header: 'servicekey', query: 'servicekey' });
    if (keys.length > 0) {
      const key = keys.length === 1 ? await this.accounts.findActiveKey(keys[0], 'service') : null;
      if (!key) throw errors.unauthorized();
      return key;
    }
    const sessionId = request.cookies?.[SESSION_COOKIE];
    const session = sessionId ? await this.sessions.get(sessionId) : undefined;
    if (!sessionId || !session) throw errors.unauthorized();
    const changesState = options.changesState === true || !SAFE_METHODS.has(request.method);
    if (changesState && !sameToken(request.headers['x-csrf-token'], session.csrf)) throw errors.csrfMismatch();
    return { account: session.account, keyId: session.keyId, sessionId };
  }
}
