import type { Accounts } from '../accounts/accounts.js';
import type { Principal } from '../http/service-auth.js';

/*
 * What the viewer is told of its session (GET /api/session, and every way of signing in), and the
 * session cookie's options: shared by the session routes and sign-ins.ts, below both.
 */

/**
 * What the viewer needs to know of the organisation beyond the session: how many days its lines
 * are kept, and whether it archives (so the viewer can offer a restore of a range older than that).
 */
export interface OrganisationFacts {
  retentionDays: number;
  archiving: boolean;
}
export type OrganisationFactsOf = (account: string) => Promise<OrganisationFacts>;

/** What the viewer learns of its session: who, in which organisation, with which role, and the CSRF token. */
export async function describeSession(accounts: Accounts, principal: Principal, csrfToken: string, features: Record<string, boolean>, facts: OrganisationFactsOf) {
  return {
    account: principal.account,
    name: (await accounts.list()).find((summary) => summary.account === principal.account)?.name ?? '',
    email: principal.member?.email ?? null,
    role: principal.role,
    scoped: principal.scope !== null,
    csrfToken,
    features,
    ...(await facts(principal.account)),
  };
}

/** Cookie options of the viewer session: HttpOnly, SameSite=Strict, Secure behind https. */
export const sessionCookie = (secure: boolean) => ({ httpOnly: true, sameSite: 'strict' as const, path: '/', secure });
