import { INGEST_PROTOCOLS } from '../ingest/intake.js';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Every metric Logstead exposes at GET /metrics, on a registry of its own (not prom-client's
 * global one), so that several servers in one process (the tests) each count only their own work.
 *
 * No label takes user input: every label value comes from one of the fixed lists below, so a
 * client cannot grow the number of series (and the memory of this process and of Prometheus).
 */

/** Why an ingest request was answered with something other than 200 (see rejection-reasons.ts). */
export const REJECTION_REASONS = [
  'bad_request',
  'unauthorized',
  'forbidden',
  'too_large',
  'unsupported_media_type',
  'request_timeout',
  'overloaded',
  'store_unavailable',
  'unavailable',
  'internal',
  'other',
] as const;
export type RejectionReason = (typeof REJECTION_REASONS)[number];

/** The read routes whose latency is measured, by their route pattern (never the raw URL). */
export const QUERY_ROUTES = ['/v1/export', '/v2/export', '/v1/histogram', '/v1/viewer/facets', '/v1/viewer/context', '/v1/viewer/fields', '/v1/usage'] as const;
export type QueryRoute = (typeof QUERY_ROUTES)[number];

export const DELIVERY_CHANNELS = ['email', 'webhook', 'pagerduty', 'slack', 'teams', 'opsgenie', 'victorops'] as const;
export type DeliveryChannel = (typeof DELIVERY_CHANNELS)[number];
/** An attempt's outcome: delivered, failed for good, or failed and to be retried. */
export const DELIVERY_OUTCOMES = ['delivered', 'failed', 'retry'] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

export const ALERT_TRIGGERS = ['lines', 'window'] as const;
export const FIRE_KINDS = ['immediate', 'terminal', 'absence', 'resolve'] as const;
export const RETENTION_REASONS = ['age', 'size'] as const;

/** What the store reports about itself at scrape time (LogStore.stats()). */
export interface StoreStats {
  rows: number;
  activeParts: number;
  bytesOnDisk: number;
  merges: number;
  mergeMemory: number;
}

/** Values read when Prometheus scrapes, from the parts that own them. */
export interface MetricSources {
  queuedLines: () => number;
  waitingRequests: () => number;
  tailClients: () => number;
  storeStats: () => Promise<StoreStats>;
}

/** Seconds, from a millisecond store write to a minute-long export. */
const FLUSH_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const QUERY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

export type Metrics = ReturnType<typeof createMetrics>;

/** What the path of a line into the store counts: lines, bytes, requests, refusals, writes. */
function ingestMetrics(registers: Registry[]) {
  return {
    ingestLines: new Counter({
      name: 'logstead_ingest_lines_total',
      help: 'Log lines stored and acknowledged, by the protocol they came in by (mezmo, otlp-http, otlp-grpc, elasticsearch, loki, syslog-tcp, syslog-tls, syslog-udp, relp).',
      labelNames: ['protocol'] as const,
      registers,
    }),
    ingestBytes: new Counter({
      name: 'logstead_ingest_bytes_total',
      help: 'UTF-8 bytes of the line text of the lines counted in logstead_ingest_lines_total (the size field of a stored line), by protocol.',
      labelNames: ['protocol'] as const,
      registers,
    }),
    ingestMetaUnindexed: new Counter({
      name: 'logstead_ingest_meta_unindexed_lines_total',
      help: 'Stored lines whose meta is kept as text only, not searchable as fields, by reason (type-conflict, daily-cap, too-large, not-an-object).',
      labelNames: ['reason'] as const,
      registers,
    }),
    ingestRequestBytes: new Counter({
      name: 'logstead_ingest_request_bytes_total',
      help: 'Request body bytes read on the ingest routes as they arrived (before decompression), whatever the answer.',
      registers,
    }),
    ingestRequests: new Counter({
      name: 'logstead_ingest_requests_total',
      help: 'Ingest requests answered, accepted or not.',
      registers,
    }),
    ingestRejections: new Counter({
      name: 'logstead_ingest_rejections_total',
      help: 'Ingest requests answered with anything but 200, by reason.',
      labelNames: ['reason'] as const,
      registers,
    }),
    syslogDropped: new Counter({
      name: 'logstead_syslog_dropped_messages_total',
      help: 'Syslog and RELP messages not stored, by protocol and reason (no-key, wrong-key, suspended, overload, truncated-frame, bad-frame, tls-handshake, store-failed, internal-error).',
      labelNames: ['protocol', 'reason'] as const,
      registers,
    }),
    parsingSkipped: new Counter({
      name: 'logstead_parsing_skipped_lines_total',
      help: "Lines stored without their organisation's custom parsing rules because the organisation had spent its share of parsing time that second (src/parsers/apply.ts).",
      registers,
    }),
    ingestShed: new Counter({
      name: 'logstead_ingest_shed_total',
      help: 'Ingest requests shed with 503 and Retry-After because they waited LOGSTEAD_INGEST_WAIT_MS for room in the queue.',
      registers,
    }),
    flushDuration: new Histogram({
      name: 'logstead_ingest_flush_duration_seconds',
      help: 'Time one batched write of ingested lines to the store took.',
      buckets: FLUSH_BUCKETS,
      registers,
    }),
    flushLines: new Counter({
      name: 'logstead_ingest_flushed_lines_total',
      help: 'Lines carried by batched store writes, with logstead_ingest_flush_duration_seconds_count the lines per write (after a failed shared write, each request is tried alone and counts again).',
      registers,
    }),
  };
}

/** What happens after a line is stored: reads, alerts, deliveries, retention and the archive. */
function readAndNotifyMetrics(registers: Registry[]) {
  return {
    queryDuration: new Histogram({
      name: 'logstead_query_duration_seconds',
      help: 'Time to answer a read request (export, histogram, viewer search), until the last byte was sent, by route pattern.',
      labelNames: ['route'] as const,
      buckets: QUERY_BUCKETS,
      registers,
    }),

    alertEvaluations: new Counter({
      name: 'logstead_alert_evaluations_total',
      help: "Alert evaluations: a batch of stored lines checked against an organisation's alerts (trigger=lines), or an alert window closed at its end (trigger=window).",
      labelNames: ['trigger'] as const,
      registers,
    }),
    alertFirings: new Counter({
      name: 'logstead_alert_firings_total',
      help: 'Alerts fired, by kind (immediate, terminal or absence).',
      labelNames: ['kind'] as const,
      registers,
    }),
    deliveries: new Counter({
      name: 'logstead_deliveries_total',
      help: 'Notification delivery attempts, by channel and outcome (delivered, failed for good, or failed and to be retried).',
      labelNames: ['channel', 'outcome'] as const,
      registers,
    }),

    /**
     * Days (partitions) dropped whole by retention: "age" (older than every organisation keeps) or
     * "size" (over LOGSTEAD_MAX_DISK_BYTES).
     */
    retentionDroppedPartitions: new Counter({
      name: 'logstead_retention_dropped_partitions_total',
      help: 'Store partitions dropped by retention, by reason (age or size).',
      labelNames: ['reason'] as const,
      registers,
    }),
    /** Lines removed by retention: in dropped days, and an organisation's lines past a shorter retention. */
    retentionDroppedLines: new Counter({
      name: 'logstead_retention_dropped_lines_total',
      help: 'Log lines dropped by retention, by reason (age or size).',
      labelNames: ['reason'] as const,
      registers,
    }),
    archiveLines: new Counter({ name: 'logstead_archive_lines_total', help: 'Log lines written to archive buckets (src/archive).', registers }),
    archiveBytes: new Counter({ name: 'logstead_archive_bytes_total', help: 'Bytes of gzip archive objects written to archive buckets.', registers }),
    archiveFiles: new Counter({ name: 'logstead_archive_files_total', help: 'Archive objects written to archive buckets.', registers }),
    archiveFailures: new Counter({ name: 'logstead_archive_failures_total', help: 'Archive object writes that failed and will be retried.', registers }),
  };
}


export function createMetrics() {
  const registry = new Registry();
  const registers = [registry];

  const metrics = { registry, ...ingestMetrics(registers), ...readAndNotifyMetrics(registers) };

  // Every series exists from the start at 0, so rate() and before/after comparisons see it.
  for (const reason of REJECTION_REASONS) metrics.ingestRejections.inc({ reason }, 0);
  for (const route of QUERY_ROUTES) metrics.queryDuration.zero({ route });
  for (const trigger of ALERT_TRIGGERS) metrics.alertEvaluations.inc({ trigger }, 0);
  for (const kind of FIRE_KINDS) metrics.alertFirings.inc({ kind }, 0);
  for (const channel of DELIVERY_CHANNELS) for (const outcome of DELIVERY_OUTCOMES) metrics.deliveries.inc({ channel, outcome }, 0);
  for (const protocol of INGEST_PROTOCOLS) {
    metrics.ingestLines.inc({ protocol }, 0);
    metrics.ingestBytes.inc({ protocol }, 0);
  }
  for (const reason of RETENTION_REASONS) {
    metrics.retentionDroppedPartitions.inc({ reason }, 0);
    metrics.retentionDroppedLines.inc({ reason }, 0);
  }

  collectDefaultMetrics({ register: registry });
  return metrics;
}

/**
 * Registers the gauges read at scrape time. The store's figures come from one small query on its
 * system tables, so a scrape stays cheap; if that query fails (the store is closing), the gauges
 * keep their last values rather than failing the scrape.
 */
export function watchSources(metrics: Metrics, sources: MetricSources): void {
  const registers = [metrics.registry];
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read());
      },
    });
  gauge('logstead_ingest_queued_lines', 'Lines acknowledged by no one yet: waiting for, or being written to, the store (the queue depth).', sources.queuedLines);
  gauge('logstead_ingest_waiting_requests', 'Ingest requests waiting, body unread, for room in the queue.', sources.waitingRequests);
  gauge('logstead_tail_clients', 'Open live tails (/ws/tail, the viewer and the CLIs).', sources.tailClients);

  let last: StoreStats = { rows: 0, activeParts: 0, bytesOnDisk: 0, merges: 0, mergeMemory: 0 };
  let pending: Promise<StoreStats> | undefined;
  // The store gauges are collected one after another in a scrape: they share one query.
  const storeStats = () => {
    pending ??= sources
      .storeStats()
      .then((stats) => (last = stats))
      .catch(() => last)
      .finally(() => (pending = undefined));
    return pending;
  };
  const storeGauge = (name: string, help: string, read: (stats: StoreStats) => number) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        this.set(read(await storeStats()));
      },
    });
  storeGauge('logstead_store_rows', 'Lines in the store.', (stats) => stats.rows);
  storeGauge('logstead_store_parts', "Active data parts of the log table (many small parts mean merges lag behind inserts).", (stats) => stats.activeParts);
  storeGauge('logstead_store_merges_running', 'Background merges of the log table running now.', (stats) => stats.merges);
  storeGauge('logstead_store_merges_memory_bytes', "Memory the log table's running merges hold, as the store tracks it.", (stats) => stats.mergeMemory);
  storeGauge('logstead_store_bytes_on_disk', 'Bytes the log table takes on disk, compressed.', (stats) => stats.bytesOnDisk);
}
