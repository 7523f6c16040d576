import Joi from 'joi';
import type { FastifyInstance } from 'fastify';
import type { Accounts } from '../accounts/accounts.js';
import type { Sessions } from '../http/sessions.js';
import { validate } from '../http/validation.js';
import { errors } from '../http/errors.js';
import { SESSION_COOKIE, type ServiceAuth } from '../http/service-auth.js';
import { type SignInLimitSettings, signInLimits } from './sign-in-limits.js';

const signInSchema = Joi.object({ serviceKey: Joi.string().trim().max(256).required() });

/**
 * Viewer sign-in: a service key buys an HttpOnly, SameSite=Strict session cookie; the response
 * carries the CSRF token that state-changing calls must echo in `x-csrf-token`. Wrong keys are
 * limited (sign-in-limits.ts) and answered 429 with Retry-After once a limit is reached.
 */
export async function sessionRoutes(
  app: FastifyInstance,
  deps: {
    accounts: Accounts;
    sessions: Sessions;
    auth: ServiceAuth;
    secureCookies: () => boolean;
    canEmail: boolean;
    signInLimits: SignInLimitSettings;
  },
): Promise<void> {
  const limits = await signInLimits(app, deps.signInLimits);
  const cookieOptions = () => ({ httpOnly: true, sameSite: 'strict' as const, path: '/', secure: deps.secureCookies() });
  const describe = async (account: string, csrfToken: string) => ({
    account,
    name: (await deps.accounts.list()).find((summary) => summary.account === account)?.name ?? '',
    csrfToken,
    // What the viewer may offer: e-mail needs an SMTP server.
    features: { email: deps.canEmail },
  });

  app.post('/api/session', { config: { permission: 'public' } }, async (request, reply) => {
    const retryAfter = await limits.retryAfter(request);
    if (retryAfter !== undefined) {
      reply.header('retry-after', String(retryAfter));
      throw errors.tooManySignIns(retryAfter);
    }
    const { serviceKey } = validate<{ serviceKey: string }>(signInSchema, request.body);
    const key = await deps.accounts.findActiveKey(serviceKey, 'service');
    if (!key) {
      await limits.failed(request);
      throw errors.unauthorized();
    }
    const { account } = key;
    const { id, session } = await deps.sessions.create(account, key.keyId);
    reply.setCookie(SESSION_COOKIE, id, { ...cookieOptions(), maxAge: Math.floor((session.expiresAt - Date.now()) / 1000) });
    return describe(account, session.csrf);
  });

  app.get('/api/session', { config: { permission: 'public' } }, async (request) => {
    const id = request.cookies[SESSION_COOKIE];
    const session = id ? await deps.sessions.get(id) : undefined;
    if (!session) throw errors.unauthorized();
    return describe(session.account, session.csrf);
  });

  app.delete('/api/session', { config: { permission: 'public' } }, async (request, reply) => {
    await deps.auth.account(request); // a session with its CSRF token, so no other site can sign a user out
    const id = request.cookies[SESSION_COOKIE];
    if (id) await deps.sessions.delete(id);
    reply.clearCookie(SESSION_COOKIE, cookieOptions());
    return { signedOut: true };
  });
}
