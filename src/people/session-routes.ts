import Joi from 'joi';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Accounts } from '../accounts/accounts.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { Sessions } from '../http/sessions.js';
import { validate } from '../http/validation.js';
import { errors } from '../http/errors.js';
import { SESSION_COOKIE, type ServiceAuth } from '../http/service-auth.js';
import type { Members } from './members.js';
import { type OrganisationFactsOf, describeSession, sessionCookie } from './session-answer.js';
import { SignIns } from './sign-ins.js';
import { MAX_PASSWORD_LENGTH, verifyPassword } from './passwords.js';
import type { SignInLimits } from './sign-in-limits.js';

const signInSchema = Joi.alternatives().try(
  Joi.object({ serviceKey: Joi.string().trim().max(256).required() }),
  Joi.object({
    email: Joi.string().trim().max(320).required(),
    password: Joi.string().max(MAX_PASSWORD_LENGTH).required(),
    // A person in several organisations may name the one to open; otherwise their oldest membership.
    account: Joi.string().trim().max(64),
  }),
);

type SignInBody = { serviceKey: string } | { email: string; password: string; account?: string };

export interface SessionRouteDeps {
  accounts: Accounts;
  sessions: Sessions;
  members: Members;
  auth: ServiceAuth;
  audit: AuditTrail;
  secureCookies: () => boolean;
  canEmail: boolean;
  /** Whether a service key may sign in (LOGSTEAD_KEY_SIGN_IN). */
  keySignIn: boolean;
  /** Whether single sign-on is configured, for the sign-in page to offer it. */
  sso: boolean;
  /** Failed sign-ins, counted per address and overall (sign-in-limits.ts). */
  limits: SignInLimits;
  organisationFacts: OrganisationFactsOf;
}

/**
 * Viewer sign-in: a member's e-mail and password, or (unless LOGSTEAD_KEY_SIGN_IN=false) a service
 * key, buys an HttpOnly, SameSite=Strict session cookie; the response carries the CSRF token that
 * state-changing calls must echo in `x-csrf-token`. Failures are limited (sign-in-limits.ts) and
 * answered 429 with Retry-After once a limit is reached. Sign-ins and failed sign-ins of members
 * go to their organisation's audit trail.
 */
export async function sessionRoutes(app: FastifyInstance, deps: SessionRouteDeps): Promise<void> {
  const { limits } = deps;
  const features = () => ({ email: deps.canEmail, sso: deps.sso, keySignIn: deps.keySignIn });
  const signIns = new SignIns({ ...deps, features });
  const refused = async (request: FastifyRequest, email: string | undefined) => {
    await limits.failed(request);
    if (email !== undefined) await signIns.recordFailure(email, request.ip, null);
    return email === undefined ? errors.unauthorized() : errors.wrongPassword();
  };

  /** GET /api/sign-in: which ways to sign in this server offers, for the sign-in page. */
  app.get('/api/sign-in', { config: { permission: 'public' } }, async () => ({ password: true, sso: deps.sso, serviceKey: deps.keySignIn }));

  app.post('/api/session', { config: { permission: 'public' } }, async (request, reply) => {
    const retryAfter = await limits.retryAfter(request);
    if (retryAfter !== undefined) {
      reply.header('retry-after', String(retryAfter));
      throw errors.tooManySignIns(retryAfter);
    }
    const body = validate<SignInBody>(signInSchema, request.body);
    if ('serviceKey' in body) {
      if (!deps.keySignIn) throw errors.keySignInOff();
      const key = await deps.accounts.findActiveKey(body.serviceKey, 'service');
      if (!key) throw await refused(request, undefined);
      return signIns.open(reply, key.account, { keyId: key.keyId });
    }
    const candidates = (await deps.members.withEmail(body.email)).filter((member) => body.account === undefined || member.account === body.account);
    // Every candidate's hash is checked (there is at most one per organisation), so the time taken says nothing of which matched.
    let match: (typeof candidates)[number] | undefined;
    for (const member of candidates) if ((await verifyPassword(body.password, member.password_hash)) && !match) match = member;
    if (candidates.length === 0) await verifyPassword(body.password, null);
    if (!match) throw await refused(request, body.email);
    await signIns.recordSignIn(match, request.ip, 'password');
    return signIns.open(reply, match.account, { memberId: match.id });
  });

  app.get('/api/session', { config: { permission: 'public' } }, async (request) => {
    const id = request.cookies[SESSION_COOKIE];
    const opened = id ? await deps.auth.sessionPrincipal(id) : undefined;
    if (!opened) throw errors.unauthorized();
    return describeSession(deps.accounts, opened.principal, opened.csrf, features(), deps.organisationFacts);
  });

  app.delete('/api/session', { config: { permission: 'public' } }, async (request, reply) => {
    await deps.auth.account(request); // a session with its CSRF token, so no other site can sign a user out
    const id = request.cookies[SESSION_COOKIE];
    if (id) await deps.sessions.delete(id);
    reply.clearCookie(SESSION_COOKIE, sessionCookie(deps.secureCookies()));
    return { signedOut: true };
  });
}
