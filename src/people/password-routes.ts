import fs from 'node:fs';
import path from 'node:path';
import Joi from 'joi';
import type { FastifyInstance } from 'fastify';
import type { Accounts } from '../accounts/accounts.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import { ApiError, errors } from '../http/errors.js';
import type { ServiceAuth } from '../http/service-auth.js';
import type { Sessions } from '../http/sessions.js';
import { validate } from '../http/validation.js';
import type { ConfigKysely } from '../repository/open.js';
import { VIEWER_DIR } from '../viewer/static-routes.js';
import { type LinkSender, sendLink } from './invitations.js';
import { type Members, normaliseEmail } from './members.js';
import type { OneTimeLinks } from './one-time-links.js';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, hashPassword } from './passwords.js';
import { SignIns } from './sign-ins.js';
import type { SignInLimits } from './sign-in-limits.js';
import type { OrganisationFactsOf } from './session-answer.js';

const tokenSchema = Joi.string().trim().min(10).max(200).required();
const passwordSchema = Joi.object({
  token: tokenSchema,
  password: Joi.string().min(MIN_PASSWORD_LENGTH).max(MAX_PASSWORD_LENGTH).required(),
  // Only the first start's owner link needs it: an invitation or reset already names its member.
  email: Joi.string().trim().email({ tlds: false }).max(320),
});
const resetSchema = Joi.object({ email: Joi.string().trim().email({ tlds: false }).max(320).required() });

export interface PasswordRouteDeps {
  db: ConfigKysely;
  accounts: Accounts;
  members: Members;
  sessions: Sessions;
  auth: ServiceAuth;
  audit: AuditTrail;
  links: OneTimeLinks;
  resets: LinkSender;
  limits: SignInLimits;
  secureCookies: () => boolean;
  features: () => Record<string, boolean>;
  organisationFacts: OrganisationFactsOf;
}

// Unstyled on purpose: the server's Content-Security-Policy (style-src 'self') blocks inline styles,
// and a browser would report a style attribute here as a violation. The empty icon keeps the
// browser from asking for /favicon.ico, which is a 404.
const GONE_PAGE = (title: string, text: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>${title} · Logstead</title></head>
<body>
<h1>${title}</h1><p>${text}</p><p><a href="/">Go to the sign-in page</a></p></body></html>`;

/** A link that cannot be used: 410 for a used or expired one, 404 for one that never was. */
function linkRefused(state: 'used' | 'expired' | 'unknown'): ApiError {
  if (state === 'used') return errors.linkGone('This link has already been used; each link works once. Ask for a new one (reset your password from the sign-in page).');
  if (state === 'expired') return errors.linkGone('This link has expired. Ask for a new one (reset your password from the sign-in page, or ask an admin to invite you again).');
  return errors.notFound('This link is not valid.');
}

/**
 * One-time links in use: GET /password?token= opens the page that takes a new password (or says
 * the link is used or expired, with 410); GET /api/password?token= tells that page what the link
 * is for; POST /api/password {token, password} (and `email` for the first start's owner link)
 * sets it and signs the person in; POST /api/password/reset {email} e-mails a reset link.
 */
export async function passwordRoutes(app: FastifyInstance, deps: PasswordRouteDeps): Promise<void> {
  const { links, members } = deps;
  const signIns = new SignIns(deps);

  app.get<{ Querystring: { token?: string } }>('/password', { config: { permission: 'public' } }, async (request, reply) => {
    const state = await links.inspect(String(request.query.token ?? ''));
    reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
    if (state.state !== 'valid') {
      const refused = linkRefused(state.state);
      return reply.code(refused.statusCode).type('text/html; charset=utf-8').send(GONE_PAGE(state.state === 'unknown' ? 'Link not valid' : 'Link no longer works', refused.body.error));
    }
    const page = path.join(VIEWER_DIR, 'index.html');
    if (fs.existsSync(page)) return reply.type('text/html; charset=utf-8').send(fs.readFileSync(page));
    return reply.type('text/html; charset=utf-8').send(GONE_PAGE('Choose a password', 'The viewer is not built here; send POST /api/password with {"token", "password"}.'));
  });

  app.get<{ Querystring: { token?: string } }>('/api/password', { config: { permission: 'public' } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const state = await links.inspect(String(request.query.token ?? ''));
    if (state.state !== 'valid') throw linkRefused(state.state);
    const member = state.link.member_id ? await members.byId(state.link.member_id) : undefined;
    const organisation = (await deps.accounts.list()).find((org) => org.account === state.link.account)?.name ?? '';
    return { purpose: state.link.purpose, email: member?.email ?? null, organisation, expires: Number(state.link.expires_at) };
  });

  app.post('/api/password', { config: { permission: 'public' } }, async (request, reply) => {
    const body = validate<{ token: string; password: string; email?: string }>(passwordSchema, request.body);
    const state = await links.inspect(body.token);
    if (state.state !== 'valid') throw linkRefused(state.state);
    const { link } = state;
    if (link.purpose === 'owner' && !body.email) {
      throw errors.validationFailed([{ message: '"email" is required to become the owner', key: 'email', field: 'E-mail' }]);
    }
    const passwordHash = await hashPassword(body.password);
    const memberId = await deps.db.transaction().execute(async (trx) => {
      if (!(await links.spend(trx, body.token))) return undefined;
      if (link.purpose !== 'owner') {
        await members.setPassword(link.member_id!, passwordHash, trx);
        await deps.sessions.endForMember(link.member_id!, trx); // a new password ends every other session
        return link.member_id!;
      }
      return members.becomeOwner(trx, link.account, normaliseEmail(body.email!), passwordHash);
    });
    if (memberId === undefined) throw linkRefused('used'); // another request spent it first
    const member = (await members.byId(memberId))!;
    await deps.audit.record(link.account, {
      actor: member.email,
      address: request.ip,
      action: link.purpose === 'owner' ? 'member.claim-owner' : 'member.set-password',
      resource: 'member',
      id: member.email,
      before: null,
      after: { email: member.email, role: member.role, password: 'set' },
    });
    return signIns.open(reply, link.account, { memberId });
  });

  app.post('/api/password/reset', { config: { permission: 'public' } }, async (request, reply) => {
    const retryAfter = await deps.limits.retryAfter(request);
    if (retryAfter !== undefined) {
      reply.header('retry-after', String(retryAfter));
      throw errors.tooManySignIns(retryAfter);
    }
    const { email } = validate<{ email: string }>(resetSchema, request.body);
    // Counted like a failed sign-in: each request may send mail, so one address cannot send many.
    await deps.limits.failed(request);
    const organisations = await deps.accounts.list();
    for (const member of await members.withEmail(email)) {
      const name = organisations.find((org) => org.account === member.account)?.name ?? member.account;
      const sent = await sendLink(deps.resets, 'reset', member, name);
      if (!sent.sent) request.log.warn({ detail: sent.detail }, 'a password reset e-mail was not sent');
    }
    // The same answer whether or not the address is a member, so the form tells no one who is.
    return { status: 'ok', message: `If ${normaliseEmail(email)} is a member, a link to choose a new password is on its way.` };
  });

}
