import { ServiceAuth } from '../http/service-auth.js';
import { Sessions } from '../http/sessions.js';
import type { Subsystem } from '../lib/subsystem.js';
import type { ConfigKysely } from '../repository/open.js';
import { Groups } from '../people/groups.js';
import { Members } from '../people/members.js';
import { Accounts } from './accounts.js';
import { keyRoutes } from './key-routes.js';

export interface AccountsSubsystem extends Subsystem {
  accounts: Accounts;
  /** The viewer's sign-in sessions, which present a service key for the browser. */
  sessions: Sessions;
  /** Who made a request: the organisation behind a service key or a viewer session, with its role and scope. */
  auth: ServiceAuth;
  /** The people of each organisation, whose role and scope a member's session carries. */
  members: Members;
  groups: Groups;
}

/**
 * Organisations, their keys and members, the authentication every read and configuration route
 * uses, and /v1/config/keys. Members and groups are read here because every request's principal
 * needs them; their routes are people's (src/people/start.ts).
 */
export function startAccounts(deps: { db: ConfigKysely }): AccountsSubsystem {
  const accounts = new Accounts(deps.db);
  const sessions = new Sessions(deps.db);
  const members = new Members(deps.db);
  const groups = new Groups(deps.db);
  const auth = new ServiceAuth(accounts, sessions, members);
  return {
    accounts,
    sessions,
    auth,
    members,
    groups,
    routes: async (app) => {
      await app.register(keyRoutes, { auth, accounts, makers: members });
    },
    close: async () => {},
  };
}
