import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { AccessScope } from '../query/access-scope.js';
import type { Role } from './permissions.js';
import { presentedKeys } from './credentials.js';
import { errors } from './errors.js';
import type { Session } from './sessions.js';

export const SESSION_COOKIE = 'logstead_session';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** A member's credential id, in the place a key's id goes: what they open ends when they are removed. */
const MEMBER_CREDENTIAL = 'member:';
export const memberCredential = (memberId: string): string => `${MEMBER_CREDENTIAL}${memberId}`;

function sameToken(given: unknown, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Who made a request: the organisation, the credential behind it (a service key, or a member
 * signed in as themselves), the viewer session when there is one, the role that decides what they
 * may do, and the access scope that decides which lines they see. Anything long-lived that a
 * request opens (a live tail, an e-mailed export link) keeps this, so that revoking the key, the
 * session or the member reaches it.
 */
export interface Principal {
  account: string;
  /** A service key's id, or `member:<id>` for a person. */
  keyId: string;
  sessionId?: string;
  /** Service keys hold every right, for automation (the Terraform provider, the CLIs). */
  role: Role;
  /** The member behind a person's session. */
  member?: { id: string; email: string };
  /**
   * The member who made the service key behind this request, when a member made it: the key then
   * holds that member's current role and scope, never more (issue 39).
   */
  maker?: { id: string; email: string };
  /** The searches that limit which lines this principal sees; null for every line. */
  scope: AccessScope;
}

/** Where keys are looked up (the configuration's accounts); declared here so http depends on no store. */
export interface KeyDirectory {
  findActiveKey(key: string, type: 'service'): Promise<{ account: string; keyId: string; madeBy: string | null } | null>;
  /** A live key's maker (null: a key of full rights); undefined once the key may no longer act. */
  liveKeyMaker(keyId: string, openedAt?: number): Promise<string | null | undefined>;
}

/** Where viewer sessions are looked up. */
export interface SessionDirectory {
  get(id: string): Promise<Session | undefined>;
}

/** Where members are looked up: their role and scope now. */
export interface MemberDirectory {
  access(memberId: string): Promise<{ id: string; account: string; email: string; role: Role; scope: AccessScope } | undefined>;
}

/**
 * Who is asking, for every read and configuration API: a service key (servicekey header or query,
 * Basic, or Authorization: Token), or the viewer's session cookie, a key's or a member's. A request
 * that changes state with a session must also carry its CSRF token in `x-csrf-token`; key-based
 * requests need none, since a browser never adds a key by itself. Each request is resolved once:
 * the permission check (permissions.ts) and the route share the answer.
 */
export class ServiceAuth {
  private readonly resolved = new WeakMap<FastifyRequest, Promise<{ principal: Principal; csrf?: string }>>();

  constructor(
    private readonly accounts: KeyDirectory,
    private readonly sessions: SessionDirectory,
    private readonly members: MemberDirectory,
  ) {}

  /** Whether a credential id (a key's, or a member's) may still act; with `openedAt`, also not deactivated since. */
  async credentialIsLive(keyId: string, openedAt?: number): Promise<boolean> {
    if (keyId.startsWith(MEMBER_CREDENTIAL)) return (await this.members.access(keyId.slice(MEMBER_CREDENTIAL.length))) !== undefined;
    const maker = await this.accounts.liveKeyMaker(keyId, openedAt);
    if (maker === undefined) return false;
    return maker === null || (await this.members.access(maker)) !== undefined;
  }

  /**
   * What a principal is now: undefined once its session, key or member is gone; otherwise with the
   * member's current role and scope. Live tails ask this every few seconds.
   */
  async current(principal: Principal, openedAt?: number): Promise<Principal | undefined> {
    if (principal.sessionId !== undefined) {
      const session = await this.sessions.get(principal.sessionId);
      return session && (await this.fromSession(session, principal.sessionId));
    }
    if (principal.keyId.startsWith(MEMBER_CREDENTIAL)) return (await this.credentialIsLive(principal.keyId, openedAt)) ? principal : undefined;
    return this.fromKey(principal.account, principal.keyId, await this.accounts.liveKeyMaker(principal.keyId, openedAt));
  }

  /** Whether what a principal opened may go on: its session (if any) is alive and its key or member live. */
  async stillAuthorised(principal: Principal, openedAt?: number): Promise<boolean> {
    return (await this.current(principal, openedAt)) !== undefined;
  }

  async account(request: FastifyRequest, options: { changesState?: boolean } = {}): Promise<string> {
    return (await this.principal(request, options)).account;
  }

  /**
   * The principal of a request. `changesState` marks a GET that does more than read (an export
   * sent by e-mail), so it needs the session's CSRF token like any other write.
   */
  async principal(request: FastifyRequest, options: { changesState?: boolean } = {}): Promise<Principal> {
    let pending = this.resolved.get(request);
    if (!pending) {
      pending = this.resolve(request);
      this.resolved.set(request, pending);
    }
    const { principal, csrf } = await pending;
    const changesState = options.changesState === true || !SAFE_METHODS.has(request.method);
    if (csrf !== undefined && changesState && !sameToken(request.headers['x-csrf-token'], csrf)) throw errors.csrfMismatch();
    return principal;
  }

  /** A session's principal and CSRF token, by the session id of its cookie; undefined once it has ended. */
  async sessionPrincipal(sessionId: string): Promise<{ principal: Principal; csrf: string } | undefined> {
    const session = await this.sessions.get(sessionId);
    const principal = session && (await this.fromSession(session, sessionId));
    return principal && session && { principal, csrf: session.csrf };
  }

  private async resolve(request: FastifyRequest): Promise<{ principal: Principal; csrf?: string }> {
    const keys = presentedKeys(request, { header: 'servicekey', query: 'servicekey' });
    if (keys.length > 0) {
      const key = keys.length === 1 ? await this.accounts.findActiveKey(keys[0], 'service') : null;
      const principal = key ? await this.fromKey(key.account, key.keyId, key.madeBy) : undefined;
      if (!principal) throw errors.unauthorized();
      return { principal };
    }
    const sessionId = request.cookies?.[SESSION_COOKIE];
    const session = sessionId ? await this.sessions.get(sessionId) : undefined;
    const principal = session && sessionId ? await this.fromSession(session, sessionId) : undefined;
    if (!principal || !session) throw errors.unauthorized();
    return { principal, csrf: session.csrf };
  }

  private async fromSession(session: Session, sessionId: string): Promise<Principal | undefined> {
    if (session.memberId === null) {
      const principal = await this.fromKey(session.account, session.keyId, await this.accounts.liveKeyMaker(session.keyId));
      return principal && { ...principal, sessionId };
    }
    const member = await this.members.access(session.memberId);
    if (!member || member.account !== session.account) return undefined;
    return { account: member.account, keyId: memberCredential(member.id), sessionId, role: member.role, member: { id: member.id, email: member.email }, scope: member.scope };
  }

  /**
   * A service key's principal: full rights when no member made it (the CLI, or a key of full
   * rights); otherwise its maker's role and scope now, and nothing once the maker is gone.
   */
  private async fromKey(account: string, keyId: string, madeBy: string | null | undefined): Promise<Principal | undefined> {
    if (madeBy === undefined) return undefined;
    if (madeBy === null) return { account, keyId, role: 'owner', scope: null };
    const maker = await this.members.access(madeBy);
    if (!maker || maker.account !== account) return undefined;
    return { account, keyId, role: maker.role, scope: maker.scope, maker: { id: maker.id, email: maker.email } };
  }
}

/**
 * The credential that answers for what a principal sets up (a channel's target, a delivery):
 * `member:<id>` for a person, or for a key a member made; a key's own id for a key of full rights.
 */
export function setterOf(principal: Principal): string {
  const person = principal.member ?? principal.maker;
  return person ? memberCredential(person.id) : principal.keyId;
}

/** The member id in a setter credential (setterOf), or null for a key of full rights. */
export function setterMember(setter: string): string | null {
  return setter.startsWith(MEMBER_CREDENTIAL) ? setter.slice(MEMBER_CREDENTIAL.length) : null;
}
