import type { Accounts } from '../accounts/accounts.js';
import type { ServiceAuth } from '../http/service-auth.js';
import type { Sessions } from '../http/sessions.js';
import type { Subsystem } from '../lib/subsystem.js';
import type { Settings } from '../settings.js';
import type { LogStore } from '../store/log-store.js';
import { histogramRoutes } from './histogram-routes.js';
import { sessionRoutes } from './session-routes.js';
import { staticRoutes } from './static-routes.js';
import { viewerRoutes } from './viewer-routes.js';

export interface ViewerDeps {
  settings: Pick<Settings, 'signInFailuresPerAddress' | 'signInFailuresPerMinute'>;
  store: LogStore;
  accounts: Accounts;
  sessions: Sessions;
  auth: ServiceAuth;
  /** Whether e-mail can be sent here, which the viewer offers only then. */
  canEmail: boolean;
  publicUrl: () => string;
}

/**
 * The log viewer's server side: sign-in sessions (/api/session), the read APIs only the viewer uses
 * (histogram, facets, line context), and the built browser app (src/web) at /.
 */
export function startViewer(deps: ViewerDeps): Subsystem {
  return {
    routes: async (app) => {
      await app.register(sessionRoutes, {
        accounts: deps.accounts,
        sessions: deps.sessions,
        auth: deps.auth,
        secureCookies: () => deps.publicUrl().startsWith('https:'),
        canEmail: deps.canEmail,
        signInLimits: { failuresPerAddress: deps.settings.signInFailuresPerAddress, failuresPerMinute: deps.settings.signInFailuresPerMinute },
      });
      await app.register(histogramRoutes, { auth: deps.auth, store: deps.store });
      await app.register(viewerRoutes, { auth: deps.auth, store: deps.store });
      if (!(await staticRoutes(app))) app.log.warn('the log viewer is not built (npm run build); serving the API only');
    },
    close: async () => {},
  };
}
