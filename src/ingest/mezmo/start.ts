import type { Accounts } from '../../accounts/accounts.js';
import type { Subsystem } from '../../lib/subsystem.js';
import type { IngestAdmission } from '../admission.js';
import type { Intake } from '../intake.js';
import { ingestRoutes } from './ingest-routes.js';

/** The LogDNA / Mezmo HTTP ingestion API: POST /logs/ingest and /logs/agent, as its agents, SDKs and shippers send. */
export function startMezmoIngest(deps: { accounts: Accounts; intake: Intake; admission: IngestAdmission }): Subsystem {
  return {
    routes: async (app) => {
      await app.register(ingestRoutes, deps);
    },
    // Its requests are the web server's: they finish before the web server's close returns.
    close: async () => {},
  };
}
