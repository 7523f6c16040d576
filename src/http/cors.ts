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
  // Each open path's answer, built once when first asked for (every route is declared by then):
  // ingest asks on every request.
  const answers = new Map<string, FastifyCorsOptions>();
  const closed: FastifyCorsOptions = { origin: false };
  const answerFor = (path: string): FastifyCorsOptions => {
    let answer = answers.get(path);
    if (answer === undefined) {
      const methods = open.get(path);
      answer = methods ? { origin: true, methods: [...methods, 'OPTIONS'], maxAge: 86400 } : closed;
      if (methods) answers.set(path, answer);
    }
    return answer;
  };
  await app.register(cors, {
    delegator: (request, callback) => {
      const url = request.url ?? '';
      const query = url.indexOf('?');
      callback(null, answerFor(query < 0 ? url : url.slice(0, query)));
    },
  });
}
