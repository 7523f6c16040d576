import type { FastifyBaseLogger } from 'fastify';
import { PostgresBroadcast } from '../fanout/postgres-broadcast.js';
import type { ServiceAuth } from '../http/service-auth.js';
import type { AfterStore } from '../ingest/after-store.js';
import type { Subsystem } from '../lib/subsystem.js';
import { ClusterTail } from './cluster-tail.js';
import { TailHub } from './hub.js';
import { tailRoutes } from './tail-routes.js';

export interface TailDeps {
  afterStore: AfterStore;
  /** With several nodes: the PostgreSQL they share, whose NOTIFY carries tails between them. */
  sharedDatabaseUrl: string | undefined;
  auth: ServiceAuth;
  /** The viewer's address, which a browser's tail must come from. */
  publicUrl: () => string;
  log: FastifyBaseLogger;
}

/**
 * Live tail: every stored line goes to the open tails of its organisation that match it, here and,
 * with several nodes, at the others (cluster-tail.ts). Serves /ws/tail and the CLIs' socket.
 */
export async function startTail(deps: TailDeps): Promise<Subsystem & { hub: TailHub }> {
  const hub = new TailHub();
  const failed = (error: unknown) => deps.log.warn({ err: error }, 'live tail between nodes failed');
  const broadcast = deps.sharedDatabaseUrl ? await PostgresBroadcast.open(deps.sharedDatabaseUrl, failed) : undefined;
  const clusterTail = broadcast ? new ClusterTail(broadcast, hub, failed) : undefined;
  clusterTail?.start();
  const unsubscribe = deps.afterStore.subscribe({
    name: 'live tail',
    wantsRows: (account) => hub.reads(account),
    stored: (account, batch) => {
      if (batch.rows) hub.publish(account, batch.rows);
    },
  });
  return {
    hub,
    routes: async (app) => {
      await app.register(tailRoutes, { auth: deps.auth, hub, publicUrl: deps.publicUrl });
    },
    async close() {
      unsubscribe();
      clusterTail?.stop();
      await broadcast?.close();
    },
  };
}
