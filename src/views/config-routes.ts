import type { FastifyInstance } from 'fastify';
import { categoryRoutes } from './category-routes.js';
import type { ConfigDeps } from './deps.js';
import { keyRoutes } from '../accounts/key-routes.js';
import { presetRoutes } from './preset-routes.js';
import { viewRoutes } from './view-routes.js';

/** The configuration API under /v1/config (spec §4.3, §4.4; compat reference §5). */
export async function configRoutes(app: FastifyInstance, deps: ConfigDeps): Promise<void> {
  await app.register(viewRoutes, deps);
  await app.register(presetRoutes, deps);
  await app.register(categoryRoutes, deps);
  await app.register(keyRoutes, deps);
}
