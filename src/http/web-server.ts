import cookie from '@fastify/cookie';
import websocket from '@fastify/websocket';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Routes, Subsystem } from '../lib/subsystem.js';
import type { Settings } from '../settings.js';
import { crossOriginRoutes } from './cors.js';
import { errors } from './errors.js';
import { requireDeclaredPermissions } from './permissions.js';
import { securityHeaders } from './security-headers.js';
import { createHttpServer } from './server.js';

export type WebServerSettings = Pick<Settings, 'port' | 'host' | 'publicUrl' | 'logLevel' | 'trustProxy' | 'shutdownGraceMs'>;

/** The web server, made first (its log is every subsystem's) and serving last, once all have started. */
export interface WebServer {
  app: FastifyInstance;
  log: FastifyBaseLogger;
  /** The address clients reach this server at: LOGSTEAD_PUBLIC_URL, or the address it listens on. */
  publicUrl(): string;
  /**
   * Registers every subsystem's routes and listens; `/healthz` answers 200 only once `whenListening`
   * (the first start's organisation, which names the address) has run too. Its `close` stops
   * taking requests and waits for those under way.
   */
  serve(options: ServeOptions): Promise<Subsystem & { url: string }>;
}

export interface ServeOptions {
  routes: Routes[];
  /** This node's slot, which /healthz names so that an operator can tell nodes apart. */
  node: number;
  whenListening?: (url: string) => Promise<void>;
  /**
   * Hooks every route passes through, added before any route is: the permission check (one place
   * for roles) and the audit trail's record of changes.
   */
  guards?: Array<(app: FastifyInstance) => void>;
}

/** The address a server listening on host:port is reached at from this machine. */
export function listeningUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${reachable}:${port}`;
}

/**
 * `observe` adds hooks that see every request (the HTTP metrics): added before any route, so they
 * apply to all without the routes knowing.
 */
export async function createWebServer(settings: WebServerSettings, observe: (app: FastifyInstance) => void): Promise<WebServer> {
  const app = createHttpServer(settings.logLevel, undefined, settings.trustProxy);
  await securityHeaders(app, { https: settings.publicUrl?.startsWith('https:') === true });
  observe(app);
  // Before any route, so that no route escapes it; the CORS plugin's preflight route is its own.
  requireDeclaredPermissions(app, ['OPTIONS *']);
  await crossOriginRoutes(app);
  await app.register(cookie);
  await app.register(websocket, {
    options: {
      maxPayload: 64 * 1024,
      // The Mezmo CLI asks for the "json" subprotocol and fails if the server does not pick it.
      handleProtocols: (protocols) => (protocols.has('json') ? 'json' : false),
    },
  });

  let state: 'starting' | 'ready' | 'closing' = 'starting';
  let url: string | undefined;
  const publicUrl = () => settings.publicUrl ?? url ?? listeningUrl(settings.host, settings.port);

  return {
    app,
    log: app.log,
    publicUrl,
    async serve({ routes, node, whenListening, guards = [] }) {
      for (const guard of guards) guard(app);
      app.get('/healthz', { config: { permission: 'public' } }, async (_request, reply) => {
        if (state === 'starting') return reply.code(503).send(errors.starting().body);
        if (state === 'closing') return reply.code(503).send(errors.shuttingDown().body);
        // Which node answered: behind a load balancer, an operator can tell the nodes apart.
        return { status: 'ok', node };
      });
      for (const register of routes) await app.register(register);
      await app.listen({ port: settings.port, host: settings.host });
      const address = app.server.address();
      url = listeningUrl(settings.host, typeof address === 'object' && address ? address.port : settings.port);
      await whenListening?.(publicUrl());
      state = 'ready';
      return {
        url,
        async close() {
          state = 'closing';
          // Open tails would keep the server from closing; clients reconnect to the next process.
          for (const client of app.websocketServer?.clients ?? []) client.close(1001, 'server shutting down');
          // A client that never finishes (a stalled export reader) must not hold the shutdown forever.
          const cutOff = setTimeout(() => app.server.closeAllConnections(), settings.shutdownGraceMs);
          await app.close(); // waits for in-flight requests, which wait for their writes
          clearTimeout(cutOff);
        },
      };
    },
  };
}
