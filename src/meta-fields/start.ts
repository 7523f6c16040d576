import type { ServiceAuth } from '../http/service-auth.js';
import type { Subsystem } from '../lib/subsystem.js';
import type { ConfigKysely } from '../repository/open.js';
import type { LogStore } from '../store/log-store.js';
import { metaFieldRoutes } from './meta-field-routes.js';
import { MetaFieldTypes } from './meta-field-types.js';
import { MetaTypeRegistry } from './meta-types.js';

/**
 * Meta field types: the first type a field arrives with is its type for the organisation (ingest
 * asks on every line), with a daily cap on new fields; GET /v1/config/meta-fields shows them (to a
 * scoped reader, those that stored lines inside the scope carry, which it asks the store).
 */
export function startMetaFields(deps: { db: ConfigKysely; auth: ServiceAuth; store: LogStore; maxNewFieldsPerDay: number; now?: () => number }): Subsystem & { metaTypes: MetaTypeRegistry } {
  const metaTypes = new MetaTypeRegistry(new MetaFieldTypes(deps.db), { maxNewFieldsPerDay: deps.maxNewFieldsPerDay, now: deps.now });
  return {
    metaTypes,
    routes: async (app) => {
      await app.register(metaFieldRoutes, { auth: deps.auth, metaTypes, store: deps.store });
    },
    close: async () => {},
  };
}
