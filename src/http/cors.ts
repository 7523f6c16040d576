import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Browsers may call this route from any origin (the ingest API: browser SDKs post logs
     * cross-origin). Keys travel in headers, never cookies, so no origin gains anything by it.
     */
    crossOrigin?: boolean;
  }
}

/** The answer for every path that no route opened to other origins. */
const CLOSED: FastifyCorsOptions = { origin: false };

/**
 * Cross-origin requests: answered for the routes that declare `config: { crossOrigin: true }`
 * and refused for every other. Registered once for the whole server, before any route, so that
 * no route's folder changes what the others answer.
 */
export async function crossOriginRoutes(app: FastifyInstance): Promise<void> {
  const open = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    if (!route.config?.crossOrigin) return;
    const methods = open.get(route.url) ?? new Set<string>();
    for (const method of [route.method].flat()) methods.add(method);
    open.set(route.url, methods);
  });
  // Each open path's answer, built once every route is declared: ingest asks on every request.
  const answers = new Map<string, FastifyCorsOptions>();
  app.addHook('onReady', async () => {
    for (const [path, methods] of open) answers.set(path, { origin: true, methods: [...methods, 'OPTIONS'], maxAge: 86400 });
  });
  await app.register(cors, {
    delegator: (request, callback) => {
      const url = request.url ?? '';
      const query = url.indexOf('?');
      callback(null, answers.get(query < 0 ? url : url.slice(0, query)) ?? CLOSED);
    },
  });
}
