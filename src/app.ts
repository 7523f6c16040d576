import fs from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { Accounts } from './accounts/accounts.js';
import { type FirstStartCredentials, createDefaultOrganisation } from './accounts/first-start.js';
import { Categories } from './views/categories.js';
import { openConfigDatabase } from './repository/open.js';
import { AlertState } from './alerts/alert-state.js';
import { Deliveries } from './notify/deliveries.js';
import { MetaFieldTypes } from './meta-fields/meta-field-types.js';
import { RetentionDays } from './retention/retention-days.js';
import { SharedFiles } from './export/export-files.js';
import { Presets } from './views/presets.js';
import { configRoutes } from './views/config-routes.js';
import { Views } from './views/views.js';
import { Sessions } from './viewer/sessions.js';
import { ServiceAuth } from './http/service-auth.js';
import { sessionRoutes } from './viewer/session-routes.js';
import { viewerStatic } from './viewer/static-routes.js';
import cookie from '@fastify/cookie';
import websocket from '@fastify/websocket';
import { TailHub } from './tail/hub.js';
import { tailRoute } from './tail/tail-routes.js';
import { ClusterTail } from './tail/cluster-tail.js';
import { PostgresBroadcast } from './fanout/postgres-broadcast.js';
import { AlertEvaluator } from './alerts/evaluator.js';
import { AlertRules } from './alerts/rules.js';
import { createMailer } from './notify/mailer.js';
import { alertMessage } from './notify/messages.js';
import { Outbox } from './notify/outbox.js';
import { deliveryLogRoute } from './notify/delivery-routes.js';
import { backtestRoute } from './alerts/backtest-routes.js';
import { createSender } from './notify/send.js';
import { EmailExports } from './export/email-export.js';
import { exportRoutes } from './export/export-routes.js';
import { errors } from './http/errors.js';
import { createHttpServer } from './http/server.js';
import { IngestAdmission } from './ingest/admission.js';
import { securityHeaders } from './http/security-headers.js';
import { GroupCommitBatcher } from './ingest/batcher.js';
import { LineIds, NODE_SLOTS } from './ingest/line-ids.js';
import { MetaTypeRegistry } from './meta-fields/meta-types.js';
import { ingestRoutes } from './ingest/mezmo/ingest-routes.js';
import { metaFieldRoutes } from './meta-fields/meta-field-routes.js';
import type { Settings } from './settings.js';
import { histogramRoute } from './viewer/histogram-routes.js';
import { viewerRoutes } from './viewer/viewer-routes.js';
import { UsageReports, retentionInForce } from './usage/usage.js';
import { usageRoute } from './usage/usage-routes.js';
import { serveControlSocket } from './backup/control-socket.js';
import { BackupRefused, SERVER_LOGS_NOT_BACKED_UP, SHARED_CONFIG_NOT_BACKED_UP, writeBackup } from './backup/write-backup.js';
import { LogStore } from './store/log-store.js';
import { openLogExecutor } from './store/open-executor.js';
import { retainedFrom, scheduleRetention } from './retention/enforce.js';
import { recordHttpMetrics } from './metrics/http-hooks.js';
import { alertActivity, countDelivery, countStored, measureFlushes } from './metrics/recorders.js';
import { createMetrics, watchSources } from './metrics/registry.js';
import { metricsRoute } from './metrics/metrics-routes.js';

/**
 * Request bodies read and parsed at once, in bytes. A parsed 10 MB body takes several times its
 * size in objects; this keeps a stream of maximal requests to a few hundred MB.
 */
const MAX_READING_BYTES = 64 * 1024 * 1024;

export interface RunningLogstead {
  app: FastifyInstance;
  /** The address the server listens on, e.g. http://127.0.0.1:8080. */
  url: string;
  store: LogStore;
  /** Organisations and keys, in this server's configuration store. */
  accounts: Accounts;
  /** Set when this start created the default organisation. */
  firstStart: FirstStartCredentials | null;
  /** The alert evaluator, so tests with an injected clock can close windows on demand. */
  alerts: AlertEvaluator;
  outbox: Outbox;
  /** Stops accepting requests, writes everything acknowledged, and releases the data directory. */
  close(): Promise<void>;
}

/**
 * Where several nodes share the configuration, how often each reloads what it keeps in memory
 * (alert rules, retention), so a change made at another node applies here within a second.
 */
const SHARED_RELOAD_MS = 1000;

export interface StartOptions {
  /** The clock alert windows follow; tests inject one. */
  now?: () => number;
}

/** The composition root: opens the stores, wires ingest, batcher and export, and listens. */
export async function startLogstead(settings: Settings, options: StartOptions = {}): Promise<RunningLogstead> {
  // Lines, keys and configuration are nobody else's business on a shared machine.
  fs.mkdirSync(settings.dataDir, { recursive: true, mode: 0o700 });
  const { database } = await openConfigDatabase(settings);
  const { db: configDb, dialect } = database;
  const shared = dialect === 'postgres';
  const retentionRef: { days?: RetentionDays } = {};
  const accounts = new Accounts(configDb, () => retentionRef.days?.load());
  const retentionDays = (retentionRef.days = new RetentionDays(accounts, settings.retentionDays));
  await retentionDays.load();

  const executor = await openLogExecutor(settings);
  // Retention: reads never return what an organisation no longer keeps; the schedule frees the disk.
  const keptFrom = (account: string) => retainedFrom(retentionDays.of(account), Date.now());
  const store = await LogStore.open(executor, { retainedFrom: keptFrom, cluster: settings.clickhouseCluster });
  const metrics = createMetrics();
  const sharedFiles = new SharedFiles(configDb);
  // One node alone is slot 0; nodes sharing the stores each take the next slot of the shared count.
  const nodeSlot = shared ? (await sharedFiles.recordNodeStart(Date.now())) % NODE_SLOTS : 0;
  const admission: { gate?: IngestAdmission } = {};
  const batcher = new GroupCommitBatcher(measureFlushes(metrics, (payload) => store.insert(payload)), {
    maxBatchLines: settings.maxBatchLines,
    onWritten: () => admission.gate?.progress(),
  });
  admission.gate = new IngestAdmission(() => batcher.pendingLines, {
    maxQueuedLines: settings.maxQueuedLines,
    maxReadingBytes: MAX_READING_BYTES,
    waitMs: settings.ingestWaitMs,
  });

  // Alerting: configuration changes reach the rules at once; fires and their messages are
  // recorded together, then the outbox delivers them in the background.
  let publicUrl = settings.publicUrl ?? '';
  const rules: { current?: AlertRules } = {};
  const views = new Views(configDb, (account) => rules.current?.invalidate(account));
  const presets = new Presets(configDb, (account) => rules.current?.invalidate(account));
  rules.current = new AlertRules(views, presets);
  await rules.current.load();
  const send = createSender({ mail: createMailer(settings.smtpUrl, settings.smtpFrom), allowPrivateWebhooks: settings.allowPrivateWebhooks });
  const outbox = new Outbox(
    new Deliveries(configDb, nodeSlot),
    send,
    {
      retryBaseMs: settings.deliveryRetryBaseMs,
      maxAttempts: settings.deliveryMaxAttempts,
      attempted: countDelivery(metrics),
      failed: (error) => app.log.error({ err: error }, 'the delivery outbox could not reach the configuration database'),
    },
  );
  const activity = alertActivity(metrics);
  const alerts = new AlertEvaluator(
    new AlertState(configDb),
    rules.current,
    async (event, trx) => {
      await outbox.enqueue(event.account, event.fireId, alertMessage(event, { publicUrl, pagingUrl: settings.pagingUrl }), trx);
    },
    options.now,
    {
      ...alertActivity(metrics),
      // Called once a fire's transaction has committed: its deliveries can be claimed now.
      fired: (kind) => {
        activity.fired(kind);
        outbox.kick();
      },
    },
    shared,
  );

  const sessions = new Sessions(configDb);
  const metaTypes = new MetaTypeRegistry(new MetaFieldTypes(configDb), { maxNewFieldsPerDay: settings.maxMetaFieldsPerDay, now: options.now });
  const tail = new TailHub();
  const auth = new ServiceAuth(accounts, sessions);
  watchSources(metrics, {
    queuedLines: () => batcher.pendingLines,
    waitingRequests: () => admission.gate?.waitingRequests ?? 0,
    tailClients: () => tail.size,
    storeStats: () => store.stats(),
  });

  let closing = false;
  const app = createHttpServer(settings.logLevel, undefined, settings.trustProxy);
  await securityHeaders(app, { https: settings.publicUrl?.startsWith('https:') === true });
  recordHttpMetrics(app, metrics); // before any route, so its hooks apply to all
  await app.register(cookie);
  await app.register(websocket, {
    options: {
      maxPayload: 64 * 1024,
      // The Mezmo CLI asks for the "json" subprotocol and fails if the server does not pick it.
      handleProtocols: (protocols) => (protocols.has('json') ? 'json' : false),
    },
  });
  await app.register(sessionRoutes, {
    accounts,
    sessions,
    auth,
    secureCookies: () => publicUrl.startsWith('https:'),
    canEmail: settings.smtpUrl !== undefined,
    signInLimits: { failuresPerAddress: settings.signInFailuresPerAddress, failuresPerMinute: settings.signInFailuresPerMinute },
  });
  app.get('/healthz', async (_request, reply) => {
    if (closing) return reply.code(503).send(errors.shuttingDown().body);
    // Which node answered: behind a load balancer, an operator can tell the nodes apart.
    return { status: 'ok', node: nodeSlot };
  });
  await app.register(ingestRoutes, {
    accounts,
    metaTypes,
    batcher,
    admission: admission.gate,
    lineIds: new LineIds(nodeSlot),
    driftToleranceMs: settings.driftToleranceMs,
    retainedFrom: keptFrom,
    readsLines: (account) => tail.reads(account) || alerts.watches(account),
    stored: async (account, batch, log) => {
      countStored(metrics, batch);
      if (!batch.rows) return;
      try {
        tail.publish(account, batch.rows);
        // Before the answer: a node that dies after acknowledging has already counted its lines.
        await alerts.observe(account, batch.rows);
      } catch (error) {
        log.error({ err: error }, 'live tail or alert evaluation failed');
      }
    },
  });
  const emailExports = await EmailExports.open(store, outbox, sharedFiles, {
    dataDir: settings.dataDir,
    linkHours: settings.exportLinkHours,
    publicUrl: () => publicUrl,
    now: options.now ?? Date.now,
    keyIsLive: (keyId, openedAt) => accounts.keyIsLive(keyId, openedAt),
  });
  await app.register(exportRoutes, { auth, store, emailExports, canEmail: settings.smtpUrl !== undefined });
  await app.register(histogramRoute, { auth, store });
  await app.register(viewerRoutes, { auth, store });
  const usage = new UsageReports(store, (account) => retentionInForce(accounts, settings.retentionDays, account));
  await app.register(usageRoute, { auth, usage });
  await app.register(configRoutes, { auth, accounts, views, presets, categories: new Categories(configDb), delivery: { canEmail: settings.smtpUrl !== undefined, allowPrivateWebhooks: settings.allowPrivateWebhooks } });
  await app.register(metaFieldRoutes, { auth, metaTypes });
  await app.register(backtestRoute, { auth, store, now: options.now ?? Date.now });
  await app.register(deliveryLogRoute, { auth, outbox, views, send, messageSettings: () => ({ publicUrl, pagingUrl: settings.pagingUrl }), now: options.now ?? Date.now });
  await app.register(tailRoute, { auth, hub: tail, publicUrl: () => publicUrl });
  await app.register(metricsRoute, { metrics, key: settings.metricsKey });
  if (!(await viewerStatic(app))) app.log.warn('the log viewer is not built (npm run build); serving the API only');

  try {
    await app.listen({ port: settings.port, host: settings.host });
  } catch (error) {
    await executor.close();
    await database.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  const host = settings.host === '0.0.0.0' || settings.host === '::' ? '127.0.0.1' : settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  const url = `http://${host}:${port}`;
  publicUrl = settings.publicUrl ?? url;
  // Only once the server really listens, so the keys are printed with the address that works.
  const firstStart = await createDefaultOrganisation(accounts, settings.dataDir, publicUrl);
  if (firstStart) await retentionDays.load();
  // Nodes sharing the configuration share live tail through its PostgreSQL server's NOTIFY.
  const tailError = (error: unknown) => app.log.warn({ err: error }, 'live tail between nodes failed');
  const broadcast = shared ? await PostgresBroadcast.open(settings.databaseUrl!, tailError) : undefined;
  const clusterTail = broadcast ? new ClusterTail(broadcast, tail, tailError) : undefined;
  clusterTail?.start();
  outbox.start();
  let ticking: Promise<void> | undefined;
  const windowClock = setInterval(() => {
    if (ticking) return; // a slow database: the next second catches up
    ticking = alerts
      .tick()
      .then(() => undefined)
      .catch((error) => app.log.error({ err: error }, 'closing alert windows failed'))
      .finally(() => (ticking = undefined));
  }, 1000);
  const reloadError = (error: unknown) => app.log.error({ err: error }, 'reloading shared configuration failed');
  // Organisations and their retention change from the CLI too, so even one node reloads them.
  retentionDays.start(SHARED_RELOAD_MS, reloadError);
  const rulesReload = shared ? setInterval(() => rules.current!.load().catch(reloadError), SHARED_RELOAD_MS) : undefined;
  rulesReload?.unref();
  const retention = scheduleRetention(
    store,
    () => ({
      defaultDays: settings.retentionDays,
      accounts: retentionDays.all(),
      maxDiskBytes: settings.maxDiskBytes,
    }),
    (drops) => {
      for (const drop of drops) {
        app.log.info({ retention: drop }, `retention (${drop.reason}) removed ${drop.lines} lines`);
        // A lightweight delete of an organisation's older lines drops no partition.
        if (drop.day !== undefined) metrics.retentionDroppedPartitions.inc({ reason: drop.reason });
        metrics.retentionDroppedLines.inc({ reason: drop.reason }, drop.lines);
      }
    },
    (error) => app.log.error({ err: error }, 'retention failed'),
  );
  await retention.runNow();
  await emailExports.sweep();
  // After the log engine is open: its lock proves this process owns the data directory.
  const control = await serveControlSocket(
    settings.dataDir,
    {
      backup: async (dir) => {
        if (settings.clickhouseUrl) throw new BackupRefused(SERVER_LOGS_NOT_BACKED_UP);
        if (!database.sqlite) throw new BackupRefused(SHARED_CONFIG_NOT_BACKED_UP);
        return writeBackup({ executor, configDb: database.sqlite, dataDir: settings.dataDir }, dir);
      },
      usage: async (account, range) => {
        if (!(await accounts.list()).some((org) => org.account === account)) throw errors.notFound(`No organisation has the account id "${account}".`);
        return usage.report(account, range);
      },
    },
    app.log,
  );
  const exportSweeper = setInterval(() => emailExports.sweep().catch((error) => app.log.error({ err: error }, 'removing expired exports failed')), 3_600_000);
  exportSweeper.unref();

  return {
    app,
    url,
    store,
    accounts,
    firstStart,
    alerts,
    outbox,
    async close() {
      if (closing) return;
      closing = true;
      const controlClosed = control.close(); // no new backups; one under way finishes first
      clearInterval(windowClock);
      clearInterval(rulesReload);
      clusterTail?.stop();
      await broadcast?.close();
      retentionDays.stop();
      // What the clocks started finishes before the database closes under it.
      await ticking;
      await rules.current!.settled();
      // Open tails would keep the server from closing; clients reconnect to the next process.
      for (const client of app.websocketServer?.clients ?? []) client.close(1001, 'server shutting down');
      clearInterval(exportSweeper);
      await retention.stop();
      // A client that never finishes (a stalled export reader) must not hold the shutdown forever.
      const cutOff = setTimeout(() => app.server.closeAllConnections(), settings.shutdownGraceMs);
      await app.close(); // waits for in-flight requests, which wait for their writes
      clearTimeout(cutOff);
      await batcher.drained();
      await emailExports.drained();
      await outbox.stop();
      await controlClosed;
      await executor.close();
      await database.close();
    },
  };
}
