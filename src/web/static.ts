import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** The built viewer (vite build writes it to dist/web). */
export const VIEWER_DIR = fileURLToPath(new URL('../../web', import.meta.url));

const API_PREFIXES = ['/v1/', '/v2/', '/logs/', '/api/', '/ws/', '/healthz'];

/**
 * Serves the log viewer at /. Any other GET that is not an API path gets index.html, so the
 * viewer's own addresses (?view=..., reloads, shared links) open it.
 */
export async function viewerStatic(app: FastifyInstance): Promise<boolean> {
  if (!fs.existsSync(path.join(VIEWER_DIR, 'index.html'))) return false;
  await app.register(fastifyStatic, { root: VIEWER_DIR, wildcard: false, index: ['index.html'], maxAge: '1h' });
  app.get('/*', (request, reply) => {
    if (API_PREFIXES.some((prefix) => request.url.startsWith(prefix))) return reply.callNotFound();
    return reply.header('cache-control', 'no-cache').sendFile('index.html');
  });
  return true;
}
