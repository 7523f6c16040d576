import fs from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { type FirstStartCredentials, createDefaultOrganisation } from './accounts/first-start.js';
import type { Accounts } from './accounts/accounts.js';
import { startAccounts } from './accounts/start.js';
import type { AlertEvaluator } from './alerts/evaluator.js';
import { startAlerts } from './alerts/start.js';
import { startArchive } from './archive/start.js';
import { startAudit } from './audit/start.js';
import { startBoards } from './boards/start.js';
import { startBackupControl } from './backup/start.js';
import { startExport } from './export/start.js';
import { enforcePermissions } from './http/permissions.js';
import { startIndexRate } from './index-rate/start.js';
import type { IndexRateMonitor } from './index-rate/monitor.js';
import { createWebServer } from './http/web-server.js';
import { startMezmoIngest } from './ingest/mezmo/start.js';
import { startElasticIngest } from './ingest/elasticsearch/start.js';
import { startLokiIngest } from './ingest/loki/start.js';
import { startOtlpIngest } from './ingest/otlp/start.js';
import { type SyslogPorts, startSyslogIngest } from './ingest/syslog/start.js';
import { startIngest } from './ingest/start.js';
import { startIngestionControls } from './ingestion-controls/start.js';
import { openSecretBox } from './repository/secret-box.js';
import { StartedSubsystems } from './lib/subsystem.js';
import { startMetaFields } from './meta-fields/start.js';
import { alertActivity, countDelivery, countRetentionDrop, countStored, countSyslogDrop, measureFlushes } from './metrics/recorders.js';
import { recordHttpMetrics } from './metrics/http-hooks.js';
import { createMetrics } from './metrics/registry.js';
import { startMetrics } from './metrics/start.js';
import type { Outbox } from './notify/outbox.js';
import { deliveryAbilities } from './notify/send.js';
import { startNotify } from './notify/start.js';
import { startParsers } from './parsers/start.js';
import { Groups } from './people/groups.js';
import { Members } from './people/members.js';
import { startPeople } from './people/start.js';
import { startRepository } from './repository/start.js';
import { startRetentionPolicy, startRetentionSchedule } from './retention/start.js';
import type { ConfigKysely } from './repository/open.js';
import type { Settings } from './settings.js';
import type { SqlExecutor } from './store/executor.js';
import type { LogStore } from './store/log-store.js';
import { startStore } from './store/start.js';
import { startTail } from './tail/start.js';
import { startUsage } from './usage/start.js';
import { startViewer } from './viewer/start.js';
import { startViews } from './views/start.js';
import { lastDayOfView } from './views/setter-warnings.js';

export interface RunningLogstead {
  app: FastifyInstance;
  /** The address the server listens on, e.g. http://127.0.0.1:8080. */
  url: string;
  store: LogStore;
  /** The log engine itself, for tools that reach past the store (a benchmark drops its caches). */
  engine: SqlExecutor;
  /** Organisations and keys, in this server's configuration store. */
  accounts: Accounts;
  /** Set when this start created the default organisation. */
  firstStart: FirstStartCredentials | null;
  /** The alert evaluator, so tests with an injected clock can close windows on demand. */
  alerts: AlertEvaluator;
  outbox: Outbox;
  /** The ports the syslog and RELP listeners bound (those configured), for tests that asked for port 0. */
  syslogPorts: SyslogPorts;
  /** The index-rate alert's monitor, so tests with an injected clock can check on demand. */
  indexRate: IndexRateMonitor;
  /** The configuration database, for tools and tests that work beside the server (member links). */
  db: ConfigKysely;
  /** Stops accepting requests, writes everything acknowledged, and releases the data directory. */
  close(): Promise<void>;
}

export interface StartOptions {
  /** The clock alert windows and the daily meta field cap follow; tests inject one. */
  now?: () => number;
}

/**
 * The composition root: starts every subsystem in order, each given only what it needs, then
 * serves their routes; closes them in the reverse order. The path of a line: the protocols hand
 * it to ingest's intake, which writes it to the store and tells ingest's after-store subscribers
 * (metrics, live tail, alerts); alerts record fires that notify delivers. Reads (export, viewer,
 * usage) go through the query compiler to the store.
 */
export async function startLogstead(settings: Settings, options: StartOptions = {}): Promise<RunningLogstead> {
  // The data directory is its owner's only. The process's umask, which the engine's files
  // follow, is narrowed by the command line (cli.ts), not here: a process that embeds Logstead
  // (the tests, which also write files for other programs to read) keeps its own.
  fs.mkdirSync(settings.dataDir, { recursive: true, mode: 0o700 });
  const now = options.now ?? Date.now;
  const metrics = createMetrics();
  const web = await createWebServer(settings, (app) => recordHttpMetrics(app, metrics));
  const { log, publicUrl } = web;
  const started = new StartedSubsystems();
  const closeAll = () => started.closeAll((error) => log.error({ err: error }, 'a subsystem failed to close'));
  try {
    const repository = await started.add(startRepository(settings));
    const { db, shared, nodeSlot } = repository;
    const secretBox = await openSecretBox(db, settings);
    // Members and groups are people's; every request's principal needs them, so they are made here.
    const members = new Members(db);
    const groups = new Groups(db);
    const { accounts, sessions, auth } = await started.add(startAccounts({ db, members }));
    const audit = await started.add(startAudit({ db, auth, accounts }));
    const { policy } = await started.add(startRetentionPolicy({ accounts, auth, defaultDays: settings.retentionDays, log }));
    const keptFrom = (account: string) => policy.keptFrom(account);
    const { store, executor } = await started.add(startStore({ settings, keptFrom, log }));
    const { views, presets } = await started.add(startViews({ db, auth, delivery: deliveryAbilities(settings), setters: members, volume: lastDayOfView(store, now) }));
    const notify = await started.add(startNotify({ settings, db, nodeSlot, views, auth, publicUrl, attempted: countDelivery(metrics), log, now }));
    const { metaTypes } = await started.add(startMetaFields({ db, auth, store, maxNewFieldsPerDay: settings.maxMetaFieldsPerDay, now: options.now }));
    const controls = await started.add(startIngestionControls({ db, auth, log, now: options.now }));
    const parsers = await started.add(startParsers({ db, auth, store, log, now: options.now, skipped: (lines) => metrics.parsingSkipped.inc(lines) }));
    const ingest = await started.add(
      startIngest({
        settings,
        write: measureFlushes(metrics, (payload) => store.insert(payload)),
        metaTypes,
        nodeSlot,
        keptFrom,
        gate: controls.gate,
        parse: (account, lines) => parsers.apply(account, lines),
      }),
    );
    ingest.afterStore.subscribe({ name: 'metrics', stored: (_account, batch) => countStored(metrics, batch) });
    await started.add(startMezmoIngest({ accounts, intake: ingest.intake, admission: ingest.admission }));
    await started.add(startElasticIngest({ accounts, intake: ingest.intake, admission: ingest.admission }));
    await started.add(startLokiIngest({ accounts, intake: ingest.intake, admission: ingest.admission }));
    await started.add(startOtlpIngest({ settings, accounts, intake: ingest.intake, admission: ingest.admission, log }));
    const syslog = await started.add(startSyslogIngest({ settings, accounts, intake: ingest.intake, admission: ingest.admission, dropped: countSyslogDrop(metrics), log }));
    const tail = await started.add(startTail({ afterStore: ingest.afterStore, sharedDatabaseUrl: shared ? settings.databaseUrl : undefined, auth, publicUrl, log }));
    const alerts = await started.add(startAlerts({ db, shared, views, presets, setters: members, store, afterStore: ingest.afterStore, notify, activity: alertActivity(metrics), auth, log, now }));
    const archive = await started.add(startArchive({ settings: settings.archive, canSeal: !shared || settings.secretKey !== undefined, db, nodeSlot, box: secretBox, store, auth, metrics, log }));
    await started.add(startExport({ settings, db, store, archive: archive.search, outbox: notify.outbox, canEmail: notify.canEmail, accounts, auth, publicUrl, log, now }));
    const indexRate = await started.add(
      startIndexRate({ db, auth, store, setters: members, outbox: notify.outbox, messageSettings: () => ({ publicUrl: publicUrl(), pagingUrl: settings.pagingUrl }), now, log }),
    );
    const { usage } = await started.add(startUsage({ store, policy, auth }));
    // The session answer tells the viewer the retention and whether the organisation archives, so it can offer a restore.
    const organisationFacts = async (account: string) => ({ retentionDays: policy.daysOf(account), archiving: await archive.search.configured(account) });
    const people = await started.add(startPeople({ settings, db, accounts, members, groups, sessions, auth, audit: audit.trail, canEmail: notify.canEmail, publicUrl, views, accessChanged: (account) => tail.hub.accessChanged(account), organisationFacts, namesOfLines: (filter, limit) => store.namesByLines(filter, limit) }));
    await started.add(startViewer({ store, auth }));
    await started.add(startBoards({ db, auth, store }));
    const sources = { queuedLines: ingest.queuedLines, waitingRequests: () => ingest.admission.waitingRequests, tailClients: () => tail.hub.size, storeStats: () => store.stats() };
    await started.add(startMetrics({ metrics, key: settings.metricsKey, sources }));
    await started.add(startRetentionSchedule({ store, policy, maxDiskBytes: settings.maxDiskBytes, holds: () => archive.holds(keptFrom), dropped: countRetentionDrop(metrics), log }));
    await started.add(
      startBackupControl({
        settings, executor, sqlite: repository.sqlite, accounts, usage, log, publicUrl,
        configChanged: async (account) => {
          await views.changes.emit(account);
          await presets.changes.emit(account);
        },
      }),
    );

    let firstStart: FirstStartCredentials | null = null;
    // Only once the server really listens, so the keys are saved with the address that works.
    const ownerLink = (account: string) => people.ownerLink(account);
    const whenListening = async (url: string) => void (firstStart = await createDefaultOrganisation(accounts, settings.dataDir, url, ownerLink));
    const guards = [(app: FastifyInstance) => enforcePermissions(app, auth), audit.guard];
    const server = await started.add(web.serve({ routes: started.routes(), node: nodeSlot, whenListening, guards }));

    let closing: Promise<void> | undefined;
    return {
      app: web.app,
      url: server.url,
      store,
      engine: executor,
      accounts,
      db,
      firstStart,
      alerts: alerts.evaluator,
      outbox: notify.outbox,
      syslogPorts: syslog.ports,
      indexRate: indexRate.monitor,
      close: () => (closing ??= closeAll()),
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
