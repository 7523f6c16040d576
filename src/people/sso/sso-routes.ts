import type { FastifyInstance } from 'fastify';
import type { Accounts } from '../../accounts/accounts.js';
import type { AuditTrail } from '../../audit/audit-trail.js';
import type { ServiceAuth } from '../../http/service-auth.js';
import type { Sessions } from '../../http/sessions.js';
import type { ConfigKysely } from '../../repository/open.js';
import type { OidcSettings } from '../../settings.js';
import type { Groups } from '../groups.js';
import type { Members } from '../members.js';

export interface SsoRouteDeps {
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
}

// IN PROGRESS (being written now; not committed as finished).
export async function ssoRoutes(_app: FastifyInstance, _deps: SsoRouteDeps): Promise<void> {}
