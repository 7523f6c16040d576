import type { Accounts } from '../accounts/accounts.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { ServiceAuth } from '../http/service-auth.js';
import type { Sessions } from '../http/sessions.js';
import type { Subsystem } from '../lib/subsystem.js';
import { createMailer } from '../notify/mailer.js';
import type { ConfigKysely } from '../repository/open.js';
import type { Settings } from '../settings.js';
import type { NamesOfLines } from './admits.js';
import { groupRoutes } from './group-routes.js';
import type { Groups } from './groups.js';
import { type LinkSender, passwordLink } from './invitations.js';
import { memberRoutes } from './member-routes.js';
import type { Members } from './members.js';
import { OneTimeLinks } from './one-time-links.js';
import { passwordRoutes } from './password-routes.js';
import { ScopeFollower, type ScopedViews } from './scope-follow.js';
import type { OrganisationFactsOf } from './session-answer.js';
import { sessionRoutes } from './session-routes.js';
import { signInLimits } from './sign-in-limits.js';
import { ssoRoutes } from './sso/sso-routes.js';

export type PeopleSettings = Pick<
  Settings,
  'keySignIn' | 'inviteHours' | 'smtpUrl' | 'smtpFrom' | 'signInFailuresPerAddress' | 'signInFailuresPerMinute' | 'oidc'
>;

export interface PeopleDeps {
  settings: PeopleSettings;
  db: ConfigKysely;
  accounts: Accounts;
  members: Members;
  groups: Groups;
  sessions: Sessions;
  auth: ServiceAuth;
  audit: AuditTrail;
  canEmail: boolean;
  publicUrl: () => string;
  /** The views members saved, which follow their saver's scope. */
  views: ScopedViews;
  /** Tells live tails an organisation's scopes changed, so they take the new ones at once. */
  accessChanged: (account: string) => void;
  /** The retention and archiving the viewer's session answer carries. */
  organisationFacts: OrganisationFactsOf;
  /** The store's apps and hosts of some lines, for what a group's scope admits (LogStore.namesByLines). */
  namesOfLines: NamesOfLines;
}

export interface PeopleSubsystem extends Subsystem {
  /** Issues the first start's link that makes its opener the owner of `account`. */
  ownerLink(account: string): Promise<string>;
}

/**
 * People: members with roles, groups with access scopes, and how a person signs in (password,
 * single sign-on, or an admin's service key) and gets a viewer session. Members and groups are
 * read by accounts' ServiceAuth on every request; this subsystem serves their APIs and sign-in.
 */
export function startPeople(deps: PeopleDeps): PeopleSubsystem {
  const { settings } = deps;
  const links = new OneTimeLinks(deps.db);
  const sender: LinkSender = {
    links,
    mail: createMailer(settings.smtpUrl, settings.smtpFrom),
    canEmail: deps.canEmail,
    publicUrl: deps.publicUrl,
    hours: settings.inviteHours,
  };
  const scopes = new ScopeFollower(deps.db, deps.members, deps.views, deps.accessChanged);
  const secureCookies = () => deps.publicUrl().startsWith('https:');
  const features = () => ({ email: deps.canEmail, sso: settings.oidc !== undefined, keySignIn: settings.keySignIn });
  return {
    ownerLink: async (account) => passwordLink(deps.publicUrl(), await links.issue(account, 'owner', null, settings.inviteHours * 3_600_000)),
    routes: async (app) => {
      const limits = await signInLimits(app, { failuresPerAddress: settings.signInFailuresPerAddress, failuresPerMinute: settings.signInFailuresPerMinute });
      const common = { accounts: deps.accounts, sessions: deps.sessions, members: deps.members, auth: deps.auth, audit: deps.audit, secureCookies, organisationFacts: deps.organisationFacts };
      await app.register(sessionRoutes, { ...common, canEmail: deps.canEmail, keySignIn: settings.keySignIn, sso: settings.oidc !== undefined, limits });
      await app.register(passwordRoutes, { ...common, db: deps.db, links, resets: sender, limits, features });
      await app.register(memberRoutes, { auth: deps.auth, accounts: deps.accounts, members: deps.members, groups: deps.groups, sessions: deps.sessions, invitations: sender, scopes });
      await app.register(groupRoutes, { auth: deps.auth, groups: deps.groups, scopes, names: deps.namesOfLines });
      await app.register(ssoRoutes, { ...common, db: deps.db, groups: deps.groups, oidc: settings.oidc, publicUrl: deps.publicUrl, features, scopes });
    },
    close: async () => {},
  };
}
