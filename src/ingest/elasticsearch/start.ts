import type { Accounts } from '../../accounts/accounts.js';
import type { Subsystem } from '../../lib/subsystem.js';
import type { IngestAdmission } from '../admission.js';
import type { Intake } from '../intake.js';
import { elasticRoutes } from './elastic-routes.js';

/**
 * The Elasticsearch bulk API on the main port: POST /_bulk and /{index}/_bulk, and the calls that
 * Elasticsearch clients and shippers make first (GET / and HEAD / for them, _license, templates).
 */
export function startElasticIngest(deps: { accounts: Accounts; intake: Intake; admission: IngestAdmission }): Subsystem {
  return {
    routes: async (app) => {
      await app.register(elasticRoutes, deps);
    },
    // Its requests are the web server's: they finish before the web server's close returns.
    close: async () => {},
  };
}
