import type { DropCounter } from '../ingest/syslog/syslog-intake.js';
import type { AlertActivity } from '../alerts/evaluator.js';
import type { DeliveryMessage } from '../notify/messages.js';
import type { InsertPayload } from '../store/executor.js';
import type { RetentionDrop } from '../retention/enforce.js';
import type { StoredBatch } from '../store/types.js';
import type { DeliveryChannel, DeliveryOutcome, Metrics } from './registry.js';

/** Wraps the store write the batcher calls, to time each batched write. */
export function measureFlushes(metrics: Metrics, write: (payload: InsertPayload) => Promise<void>) {
  return async (payload: InsertPayload, lines: number): Promise<void> => {
    const done = metrics.flushDuration.startTimer();
    try {
      await write(payload);
    } finally {
      done();
      metrics.flushLines.inc(lines);
    }
  };
}

/** Counts lines once they are stored and about to be acknowledged. */
export function countStored(metrics: Metrics, batch: StoredBatch): void {
  metrics.ingestLines.inc({ protocol: batch.protocol }, batch.lines);
  metrics.ingestBytes.inc({ protocol: batch.protocol }, batch.bytes);
  for (const [reason, lines] of Object.entries(batch.unindexedMeta)) metrics.ingestMetaUnindexed.inc({ reason }, lines);
}

/** Syslog and RELP messages dropped, by protocol and reason. */
export function countSyslogDrop(metrics: Metrics): DropCounter {
  return (protocol, reason, messages) => metrics.syslogDropped.inc({ protocol, reason }, messages);
}

export function alertActivity(metrics: Metrics): AlertActivity {
  return {
    evaluated: (trigger) => metrics.alertEvaluations.inc({ trigger }),
    fired: (kind) => metrics.alertFirings.inc({ kind }),
  };
}

/** Incident paging speaks PagerDuty's Events API, and is labelled so. */
const CHANNELS: Record<DeliveryMessage['integration'], DeliveryChannel> = { email: 'email', webhook: 'webhook', incidentpaging: 'pagerduty', slack: 'slack', teams: 'teams', opsgenie: 'opsgenie', victorops: 'victorops' };

export function countDelivery(metrics: Metrics) {
  return (integration: DeliveryMessage['integration'], outcome: DeliveryOutcome) =>
    metrics.deliveries.inc({ channel: CHANNELS[integration], outcome });
}

/** Counts what retention removed: whole days (partitions) and lines. */
export function countRetentionDrop(metrics: Metrics) {
  return (drop: RetentionDrop): void => {
    // A lightweight delete of an organisation's older lines drops no partition.
    if (drop.day !== undefined) metrics.retentionDroppedPartitions.inc({ reason: drop.reason });
    metrics.retentionDroppedLines.inc({ reason: drop.reason }, drop.lines);
  };
}
