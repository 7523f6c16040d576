import type { Accounts } from '../../accounts/accounts.js';
import type { AuditTrail } from '../../audit/audit-trail.js';
import { type ApiError, errors } from '../../http/errors.js';
import type { ConfigTables } from '../../repository/tables.js';
import type { OidcSettings } from '../../settings.js';
import type { Groups } from '../groups.js';
import { AccessChangeError } from '../access-guard.js';
import { MemberError, type Members, normaliseEmail } from '../members.js';
import type { ScopeFollower } from '../scope-follow.js';

type MemberRow = ConfigTables['members'];

/** What the provider says of the person, once its answer passed every check. */
export interface ProvidedPerson {
  email: string | undefined;
  /** `email_verified` as the provider gave it; only an explicit false refuses. */
  emailVerified: unknown;
  /** The values of the groups claim, or undefined when it is not configured or the provider left it out. */
  groups: string[] | undefined;
}

export interface AdmissionDeps {
  accounts: Accounts;
  members: Members;
  groups: Groups;
  audit: AuditTrail;
  oidc: OidcSettings;
  /** Keeps the views a member saved inside their scope when the claim changes their groups. */
  scopes: ScopeFollower;
}

export type Admission = { admitted: MemberRow } | { refused: ApiError; email?: string };

const EMAIL_SHAPE = /^[^@\s]+@[^@\s]+$/;

/**
 * Who may sign in with single sign-on: a member with the provider's (verified) e-mail, in the
 * organisation that invited them (the oldest membership, when there are several); otherwise a
 * person whose e-mail domain is listed in LOGSTEAD_OIDC_DOMAINS, who joins LOGSTEAD_OIDC_ACCOUNT
 * (or the first organisation) with the default role. Nobody else.
 */
export async function admit(deps: AdmissionDeps, person: ProvidedPerson, address: string): Promise<Admission> {
  if (!person.email || !EMAIL_SHAPE.test(person.email) || person.email.length > 320) return { refused: errors.ssoEmailMissing() };
  const email = normaliseEmail(person.email);
  if (person.emailVerified === false || person.emailVerified === 'false') return { refused: errors.ssoEmailUnverified(email), email };

  let member: MemberRow | undefined = (await deps.members.withEmail(email))[0];
  if (!member) {
    const joined = await join(deps, email, address);
    if ('refused' in joined) return { ...joined, email };
    member = joined.admitted;
  }
  if (person.groups !== undefined) await followGroupsClaim(deps, member, person.groups, address);
  return { admitted: member };
}

async function join(deps: AdmissionDeps, email: string, address: string): Promise<Admission> {
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (!deps.oidc.domains.includes(domain)) return { refused: errors.ssoNotAllowed(email) };
  const organisations = await deps.accounts.list();
  const organisation = deps.oidc.account === undefined ? organisations[0] : organisations.find((org) => org.account === deps.oidc.account);
  if (!organisation?.active) return { refused: errors.ssoNoOrganisation(deps.oidc.account ?? organisations[0]?.account ?? '') };
  try {
    const created = await deps.members.create(organisation.account, { email, role: deps.oidc.defaultRole, groups: [] });
    await deps.audit.record(organisation.account, {
      actor: email,
      address,
      action: 'member.create',
      resource: 'member',
      id: email,
      before: null,
      after: { email, role: created.role, groups: [], via: 'single sign-on' },
    });
    return { admitted: created };
  } catch (error) {
    // The same person signing in twice at once: the other sign-in created the member first.
    if (!(error instanceof MemberError && error.kind === 'duplicate')) throw error;
    const existing = await deps.members.row(organisation.account, email);
    if (!existing) throw error;
    return { admitted: existing };
  }
}

/**
 * Puts the member in exactly the groups of their organisation whose names are among the claim's
 * values; values that name no group here are ignored (a provider knows many groups Logstead does
 * not). A claim the provider left out changes nothing: leaving the member's groups as they are
 * can only keep their view narrower, whereas emptying them would widen it to every line. A claim
 * given is followed even when it takes the member out of every scoped group: the provider, which
 * an operator set up to decide groups, said so (and the audit trail records it). One that would
 * scope the organisation's last owner in no scoped group is not: the groups stay as they are.
 */
async function followGroupsClaim(deps: AdmissionDeps, member: MemberRow, names: string[], address: string): Promise<void> {
  const wanted = new Set(names);
  const ids = (await deps.groups.list(member.account)).filter((group) => wanted.has(group.name)).map((group) => group.id).sort();
  const current = [...((await deps.members.get(member.account, member.email))?.groups ?? [])].sort();
  if (ids.join(',') === current.join(',')) return;
  try {
    // The provider's claim is the operator's configuration: it may change an owner's groups, and widen.
    await deps.members.update(member.account, member.email, { groups: ids }, { by: 'owner', widen: true });
  } catch (error) {
    if (error instanceof AccessChangeError) return;
    throw error;
  }
  await deps.scopes.member(member.id);
  await deps.audit.record(member.account, {
    actor: member.email,
    address,
    action: 'member.update',
    resource: 'member',
    id: member.email,
    before: { groups: current },
    after: { groups: ids, via: 'single sign-on' },
  });
}

/** The values of a groups claim: providers send a list of names, or one name as a string. */
export function groupNames(value: unknown): string[] | undefined {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((name): name is string => typeof name === 'string');
  return undefined;
}
