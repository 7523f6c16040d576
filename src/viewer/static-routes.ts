import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** The built viewer (vite build writes it to dist/web). */
export const VIEWER_DIR = fileURLToPath(new URL('../../web', import.meta.url));

const API_PREFIXES = ['/v1/', '/v2/', '/logs/', '/api/', '/ws/', '/healthz', '/metrics'];

/**
 * A path whose last segment has a file extension (/assets/old.js, /robots.txt) asks for a file:
 * when there is none it is a 404, not the viewer page, which a browser or crawler would take for
 * a script or text. The viewer's own addresses have no extension.
 */
const asksForAFile = (url: string) => /\.[A-Za-z0-9]+$/.test(url.split('?')[0].split('/').pop() ?? '');

/** index.html names the current bundle, so browsers must ask again each time; a stale copy would load an old viewer. */
const PAGE_CACHE = 'no-cache';
/** Files under assets/ carry a hash of their content in their name: a new build has new names. */
const HASHED_ASSET_CACHE = 'public, max-age=31536000, immutable';
/** Anything else the build copies (icons and the like) may change under the same name. */
const OTHER_FILE_CACHE = 'public, max-age=3600';

function cacheControlFor(file: string): string {
  const relative = path.relative(VIEWER_DIR, file).split(path.sep);
  if (relative.length === 1 && relative[0] === 'index.html') return PAGE_CACHE;
  if (relative[0] === 'assets') return HASHED_ASSET_CACHE;
  return OTHER_FILE_CACHE;
}

/**
 * Serves the log viewer at /. Any other GET that is not an API path gets index.html, so the
 * viewer's own addresses (?view=..., reloads, shared links) open it.
 */
export async function staticRoutes(app: FastifyInstance): Promise<boolean> {
  if (!fs.existsSync(path.join(VIEWER_DIR, 'index.html'))) return false;
  // The plugin's routes (one per built file) take no route options: they are the viewer's public files.
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, permission: route.config?.permission ?? 'public' };
  });
  await app.register(fastifyStatic, {
    root: VIEWER_DIR,
    wildcard: false,
    index: ['index.html'],
    // Set per file below; the plugin's own header would be one max-age for everything.
    cacheControl: false,
    setHeaders: (response, file) => {
      response.header('cache-control', cacheControlFor(file));
    },
  });
  app.get('/*', { config: { permission: 'public' } }, (request, reply) => {
    if (API_PREFIXES.some((prefix) => request.url.startsWith(prefix)) || asksForAFile(request.url)) return reply.callNotFound();
    return reply.sendFile('index.html');
  });
  return true;
}
