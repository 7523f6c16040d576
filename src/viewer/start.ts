import type { ServiceAuth } from '../http/service-auth.js';
import type { Subsystem } from '../lib/subsystem.js';
import type { LogStore } from '../store/log-store.js';
import { fieldsRoutes } from './fields-routes.js';
import { histogramRoutes } from './histogram-routes.js';
import { patternsRoutes } from './patterns/patterns-routes.js';
import { staticRoutes } from './static-routes.js';
import { viewerRoutes } from './viewer-routes.js';

export interface ViewerDeps {
  store: LogStore;
  auth: ServiceAuth;
}

/**
 * The log viewer's server side: the read APIs only the viewer uses (histogram, facets, line
 * context, the fields sidebar), and the built browser app (src/web) at /. Signing in is people's (src/people).
 */
export function startViewer(deps: ViewerDeps): Subsystem {
  return {
    routes: async (app) => {
      await app.register(histogramRoutes, { auth: deps.auth, store: deps.store });
      await app.register(viewerRoutes, { auth: deps.auth, store: deps.store });
      await app.register(patternsRoutes, { auth: deps.auth, store: deps.store });
      await app.register(fieldsRoutes, { auth: deps.auth, store: deps.store });
      if (!(await staticRoutes(app))) app.log.warn('the log viewer is not built (npm run build); serving the API only');
    },
    close: async () => {},
  };
}
