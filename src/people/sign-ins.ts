import type { FastifyReply } from 'fastify';
import type { Accounts } from '../accounts/accounts.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import { errors } from '../http/errors.js';
import { SESSION_COOKIE, type ServiceAuth } from '../http/service-auth.js';
import type { SessionOwner, Sessions } from '../http/sessions.js';
import type { Members } from './members.js';
import { type OrganisationFactsOf, describeSession, sessionCookie } from './session-answer.js';

export interface SignInDeps {
  accounts: Accounts;
  sessions: Sessions;
  members: Members;
  auth: ServiceAuth;
  audit: AuditTrail;
  secureCookies: () => boolean;
  features: () => Record<string, boolean>;
  organisationFacts: OrganisationFactsOf;
}

/**
 * What every way of signing in does once it knows who (password, a one-time link, single
 * sign-on, a service key): the session, its cookie and the viewer's answer; and what it records
 * of members in their organisation's audit trail.
 */
export class SignIns {
  constructor(private readonly deps: SignInDeps) {}

  /** Opens a session for `owner`, sets its cookie on `reply`, and answers as GET /api/session does. */
  async open(reply: FastifyReply, account: string, owner: SessionOwner) {
    const { deps } = this;
    if ('memberId' in owner) await deps.members.signedIn(owner.memberId);
    const { id, session } = await deps.sessions.create(account, owner);
    reply.setCookie(SESSION_COOKIE, id, { ...sessionCookie(deps.secureCookies()), maxAge: Math.floor((session.expiresAt - Date.now()) / 1000) });
    const opened = await deps.auth.sessionPrincipal(id);
    if (!opened) throw errors.unauthorized();
    return describeSession(deps.accounts, opened.principal, opened.csrf, deps.features(), deps.organisationFacts);
  }

  /** A member's sign-in, for the audit trail. */
  async recordSignIn(member: { account: string; email: string }, address: string, method: 'password' | 'sso'): Promise<void> {
    await this.deps.audit.record(member.account, { actor: member.email, address, action: 'session.sign-in', resource: 'session', id: member.email, before: null, after: { method } });
  }

  /** A failed sign-in, recorded where the address is a member: an organisation sees attempts on its own people only. */
  async recordFailure(email: string, address: string, after: unknown): Promise<void> {
    for (const member of await this.deps.members.withEmail(email)) {
      await this.deps.audit.record(member.account, { actor: member.email, address, action: 'session.sign-in-failed', resource: 'session', id: member.email, before: null, after });
    }
  }
}
