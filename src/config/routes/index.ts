import type { FastifyInstance } from 'fastify';
import { categoryRoutes } from './categories.js';
import type { ConfigDeps } from './deps.js';
import { keyRoutes } from './keys.js';
import { presetRoutes } from './presets.js';
import { viewRoutes } from './views.js';

/** The configuration API under /v1/config (spec §4.3, §4.4; compat reference §5). */
export async function configRoutes(app: FastifyInstance, deps: ConfigDeps): Promise<void> {
  await app.register(viewRoutes, deps);
  await app.register(presetRoutes, deps);
  await app.register(categoryRoutes, deps);
  await app.register(keyRoutes, deps);
}
