import type { Accounts } from '../../accounts/accounts.js';
import type { Subsystem } from '../../lib/subsystem.js';
import type { IngestAdmission } from '../admission.js';
import type { Intake } from '../intake.js';
import { lokiPushRoutes } from './push-routes.js';

/** Loki's push API: POST /loki/api/v1/push, in protobuf (snappy) and JSON, as Loki's clients send. */
export function startLokiIngest(deps: { accounts: Accounts; intake: Intake; admission: IngestAdmission }): Subsystem {
  return {
    routes: async (app) => {
      await app.register(lokiPushRoutes, deps);
    },
    // Its requests are the web server's: they finish before the web server's close returns.
    close: async () => {},
  };
}
