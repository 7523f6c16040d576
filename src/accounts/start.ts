import { type MemberDirectory, ServiceAuth } from '../http/service-auth.js';
import { Sessions } from '../http/sessions.js';
import type { Subsystem } from '../lib/subsystem.js';
import type { ConfigKysely } from '../repository/open.js';
import { Accounts } from './accounts.js';
import { keyRoutes } from './key-routes.js';

export interface AccountsSubsystem extends Subsystem {
  accounts: Accounts;
  /** The viewer's sign-in sessions, which present a service key for the browser. */
  sessions: Sessions;
  /** Who made a request: the organisation behind a service key or a viewer session, with its role and scope. */
  auth: ServiceAuth;
}

/**
 * Organisations, their keys, the authentication every read and configuration route uses, and
 * /v1/config/keys. Every request's principal needs the members of its organisation: the
 * composition root passes them in (people's Members), so accounts does not import people, which
 * sits above it.
 */
export function startAccounts(deps: { db: ConfigKysely; members: MemberDirectory }): AccountsSubsystem {
  const accounts = new Accounts(deps.db);
  const sessions = new Sessions(deps.db);
  const auth = new ServiceAuth(accounts, sessions, deps.members);
  return {
    accounts,
    sessions,
    auth,
    routes: async (app) => {
      await app.register(keyRoutes, { auth, accounts, makers: deps.members });
    },
    close: async () => {},
  };
}
