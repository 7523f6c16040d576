import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Accounts } from './config/accounts.js';
import { type FirstStartCredentials, createDefaultOrganisation } from './config/bootstrap.js';
import { Categories } from './config/categories.js';
import { openConfigDb } from './config/database.js';
import { Presets } from './config/presets.js';
import { configRoutes } from './config/routes/index.js';
import { Views } from './config/views.js';
import { exportRoutes } from './export/routes.js';
import { errors } from './http/errors.js';
import { createHttpServer } from './http/server.js';
import { GroupCommitBatcher } from './ingest/batcher.js';
import { LineIds } from './ingest/line-ids.js';
import { MetaTypeRegistry } from './ingest/meta-types.js';
import { ingestRoutes } from './ingest/routes.js';
import type { Settings } from './settings.js';
import { histogramRoute } from './search/histogram-route.js';
import { openChdbExecutor } from './store/chdb-executor.js';
import { LogStore } from './store/log-store.js';

export interface RunningLogstead {
  app: FastifyInstance;
  /** The address the server listens on, e.g. http://127.0.0.1:8080. */
  url: string;
  store: LogStore;
  /** Set when this start created the default organisation. */
  firstStart: FirstStartCredentials | null;
  /** Stops accepting requests, writes everything acknowledged, and releases the data directory. */
  close(): Promise<void>;
}

/** The composition root: opens the stores, wires ingest, batcher and export, and listens. */
export async function startLogstead(settings: Settings): Promise<RunningLogstead> {
  // Lines, keys and configuration are nobody else's business on a shared machine.
  fs.mkdirSync(settings.dataDir, { recursive: true, mode: 0o700 });
  const configDb = openConfigDb(settings.dataDir);
  const accounts = new Accounts(configDb);

  const executor = await openChdbExecutor(path.join(settings.dataDir, 'clickhouse'));
  const store = await LogStore.open(executor);
  const batcher = new GroupCommitBatcher((payload) => store.insert(payload), {
    maxQueuedLines: settings.maxQueuedLines,
    maxBatchLines: settings.maxBatchLines,
  });

  let closing = false;
  const app = createHttpServer(settings.logLevel);
  app.get('/healthz', async (_request, reply) => {
    if (closing) return reply.code(503).send(errors.shuttingDown().body);
    return { status: 'ok' };
  });
  await app.register(ingestRoutes, {
    accounts,
    metaTypes: new MetaTypeRegistry(configDb),
    batcher,
    lineIds: new LineIds(),
    driftToleranceMs: settings.driftToleranceMs,
  });
  await app.register(exportRoutes, { accounts, store });
  await app.register(histogramRoute, { accounts, store });
  await app.register(configRoutes, {
    accounts,
    views: new Views(configDb),
    presets: new Presets(configDb),
    categories: new Categories(configDb),
  });

  try {
    await app.listen({ port: settings.port, host: settings.host });
  } catch (error) {
    await executor.close();
    configDb.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  const host = settings.host === '0.0.0.0' || settings.host === '::' ? '127.0.0.1' : settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  const url = `http://${host}:${port}`;
  // Only once the server really listens, so the keys are printed with the address that works.
  const firstStart = createDefaultOrganisation(accounts, settings.dataDir, settings.publicUrl ?? url);

  return {
    app,
    url,
    store,
    firstStart,
    async close() {
      if (closing) return;
      closing = true;
      // A client that never finishes (a stalled export reader) must not hold the shutdown forever.
      const cutOff = setTimeout(() => app.server.closeAllConnections(), settings.shutdownGraceMs);
      await app.close(); // waits for in-flight requests, which wait for their writes
      clearTimeout(cutOff);
      await batcher.drained();
      await executor.close();
      configDb.close();
    },
  };
}
