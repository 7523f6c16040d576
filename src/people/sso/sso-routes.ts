import type { FastifyInstance, FastifyReply } from 'fastify';
import * as client from 'openid-client';
import type { Accounts } from '../../accounts/accounts.js';
import type { AuditTrail } from '../../audit/audit-trail.js';
import { type ApiError, errors } from '../../http/errors.js';
import type { ServiceAuth } from '../../http/service-auth.js';
import type { Sessions } from '../../http/sessions.js';
import type { ConfigKysely } from '../../repository/open.js';
import type { OidcSettings } from '../../settings.js';
import type { Groups } from '../groups.js';
import type { Members } from '../members.js';
import type { ScopeFollower } from '../scope-follow.js';
import { SignIns } from '../sign-ins.js';
import { type ProvidedPerson, admit, groupNames } from './admission.js';
import { IdentityProvider, refusalOf } from './provider.js';
import { ATTEMPT_MS, SignOnAttempts } from './sign-on-attempts.js';
import type { OrganisationFactsOf } from '../session-answer.js';

export interface SsoRouteDeps {
  scopes: ScopeFollower;
  db: ConfigKysely;
  accounts: Accounts;
  sessions: Sessions;
  members: Members;
  groups: Groups;
  auth: ServiceAuth;
  audit: AuditTrail;
  oidc: OidcSettings | undefined;
  publicUrl: () => string;
  secureCookies: () => boolean;
  features: () => Record<string, boolean>;
  organisationFacts: OrganisationFactsOf;
}

/** The browser's id of its sign-in under way (sign-on-attempts.ts). */
export const ATTEMPT_COOKIE = 'logstead_sso_attempt';
const ATTEMPT_PATH = '/api/sso';

/**
 * SameSite=Lax, unlike the session's Strict: the provider sends the person back by a cross-site
 * redirect, on which a browser sends Lax cookies but never Strict ones. Limited to /api/sso.
 */
const attemptCookie = (secure: boolean) => ({ httpOnly: true, sameSite: 'lax' as const, path: ATTEMPT_PATH, secure });

/** For text between tags and in double-quoted attributes, the only places these pages put text. */
const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (char) => `&#${char.charCodeAt(0)};`);

/** A plain page (no script, no inline style: the site's CSP allows neither). */
const page = (title: string, body: string, head = '') => `<!doctype html>
<html lang="en"><head><meta charset="utf-8">${head}<title>${escapeHtml(title)} · Logstead</title></head>
<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;

/**
 * Single sign-on with OpenID Connect (authorisation code with PKCE, through openid-client).
 * GET /api/sso/start sends the browser to the provider with a fresh state, nonce and PKCE
 * challenge, kept in the shared database under the hash of an attempt cookie; GET
 * /api/sso/callback spends that attempt, lets openid-client check the answer (state, issuer,
 * audience, nonce, PKCE) and exchange the code, admits the person (admission.ts) and opens a
 * member session. Every refusal is a page that says what went wrong; no refusal leaves a session.
 */
export async function ssoRoutes(app: FastifyInstance, deps: SsoRouteDeps): Promise<void> {
  const { oidc } = deps;
  const provider = oidc && new IdentityProvider(oidc);
  const attempts = new SignOnAttempts(deps.db);
  const signIns = new SignIns(deps);
  const callbackUrl = () => `${deps.publicUrl().replace(/\/+$/, '')}/api/sso/callback`;

  const refusalPage = (reply: FastifyReply, refusal: ApiError) =>
    reply
      .code(refusal.statusCode)
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(page('Single sign-on failed', `<p>${escapeHtml(refusal.body.error)}</p><p><a href="/">Go to the sign-in page</a></p>`));

  app.get('/api/sso/start', { config: { permission: 'public' } }, async (request, reply) => {
    if (!provider) return refusalPage(reply, errors.ssoNotConfigured());
    let configuration: client.Configuration;
    try {
      configuration = await provider.configuration();
    } catch (error) {
      request.log.warn({ err: error, issuer: provider.issuer }, 'single sign-on: discovering the identity provider failed');
      return refusalPage(reply, errors.ssoProviderUnreachable(provider.issuer));
    }
    const attempt = await attempts.begin();
    const destination = client.buildAuthorizationUrl(configuration, {
      redirect_uri: callbackUrl(),
      scope: provider.scopes(configuration),
      state: attempt.state,
      nonce: attempt.nonce,
      code_challenge: attempt.codeChallenge,
      code_challenge_method: 'S256',
    });
    reply.setCookie(ATTEMPT_COOKIE, attempt.id, { ...attemptCookie(deps.secureCookies()), maxAge: ATTEMPT_MS / 1000 });
    return reply.header('cache-control', 'no-store').redirect(destination.href, 302);
  });

  app.get('/api/sso/callback', { config: { permission: 'public' } }, async (request, reply) => {
    // The attempt is one-time whatever happens next, so the browser forgets it too.
    reply.clearCookie(ATTEMPT_COOKIE, attemptCookie(deps.secureCookies()));
    if (!provider) return refusalPage(reply, errors.ssoNotConfigured());
    const attemptId = request.cookies[ATTEMPT_COOKIE];
    const attempt = attemptId ? await attempts.spend(attemptId) : undefined;
    const refused = async (refusal: ApiError, email?: string) => {
      request.log.warn({ reason: refusal.body.error }, 'single sign-on refused');
      if (email !== undefined) await signIns.recordFailure(email, request.ip, { method: 'sso' });
      return refusalPage(reply, refusal);
    };
    if (!attempt) return refused(errors.ssoAttemptUnknown());

    let person: ProvidedPerson;
    try {
      const configuration = await provider.configuration();
      // The address the provider sent the browser to, as /start named it: openid-client reads
      // the answer's parameters from it and sends it again as redirect_uri with the code.
      const answered = new URL(callbackUrl());
      answered.search = new URL(request.url, 'http://callback').search;
      const tokens = await client.authorizationCodeGrant(configuration, answered, {
        pkceCodeVerifier: attempt.codeVerifier,
        expectedState: attempt.state,
        expectedNonce: attempt.nonce,
        idTokenExpected: true,
      });
      person = await personOf(configuration, tokens);
    } catch (error) {
      return refused(refusalOf(error, provider.issuer));
    }

    const admission = await admit({ ...deps, oidc: oidc! }, person, request.ip);
    if ('refused' in admission) return refused(admission.refused, admission.email);
    const member = admission.admitted;
    await signIns.recordSignIn(member, request.ip, 'sso');
    await signIns.open(reply, member.account, { memberId: member.id });
    // Not a redirect: this answer ends a cross-site redirect chain, and the browser would send the
    // new SameSite=Strict session cookie with none of its requests. A page of this site that moves
    // on to the viewer makes that next request same-site, so the cookie goes with it.
    return reply
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(page('Signed in', `<p>You are signed in as ${escapeHtml(member.email)}. <a href="/">Open Logstead</a></p>`, '<meta http-equiv="refresh" content="0;url=/">'));
  });

  /** The person's e-mail and groups: from the ID token, or from user info when the token leaves them out (many providers do). */
  async function personOf(configuration: client.Configuration, tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>): Promise<ProvidedPerson> {
    const claims: Record<string, unknown> = { ...tokens.claims()! };
    const groupsClaim = oidc!.groupsClaim;
    const missing = claims.email === undefined || (groupsClaim !== undefined && claims[groupsClaim] === undefined);
    if (missing && configuration.serverMetadata().userinfo_endpoint) {
      // The same subject is required of user info (openid-client checks it), so it cannot speak for another person.
      const info = await client.fetchUserInfo(configuration, tokens.access_token, String(claims.sub));
      if (claims.email === undefined) Object.assign(claims, { email: info.email, email_verified: info.email_verified });
      if (groupsClaim !== undefined && claims[groupsClaim] === undefined) claims[groupsClaim] = info[groupsClaim];
    }
    return {
      email: typeof claims.email === 'string' ? claims.email : undefined,
      emailVerified: claims.email_verified,
      groups: groupsClaim === undefined ? undefined : groupNames(claims[groupsClaim]),
    };
  }
}
