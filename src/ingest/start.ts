import type { Subsystem } from '../lib/subsystem.js';
import type { MetaTypeRegistry } from '../meta-fields/meta-types.js';
import type { Settings } from '../settings.js';
import type { InsertPayload } from '../store/executor.js';
import { IngestAdmission } from './admission.js';
import { AfterStore } from './after-store.js';
import { GroupCommitBatcher } from './batcher.js';
import { Intake, type IntakeGate } from './intake.js';
import { LineIds } from './line-ids.js';
import type { PendingLine } from './normalise.js';

/**
 * Request bodies read and parsed at once, in bytes. A parsed 10 MB body takes several times its
 * size in objects; this keeps a stream of maximal requests to a few hundred MB.
 */
const MAX_READING_BYTES = 64 * 1024 * 1024;

export interface IngestDeps {
  settings: Pick<Settings, 'maxQueuedLines' | 'ingestWaitMs' | 'maxBatchLines' | 'groupCommitMs' | 'groupCommitLines' | 'driftToleranceMs'>;
  /** The durable write of a batch of encoded rows (the store's insert). */
  write: (payload: InsertPayload, lines: number) => Promise<void>;
  metaTypes: MetaTypeRegistry;
  /** This node's slot, which its line ids carry. */
  nodeSlot: number;
  /** The oldest time an organisation keeps lines from (its retention), in Unix ms. */
  keptFrom: (account: string) => number;
  /** Suspension and exclusion rules (src/ingestion-controls). */
  gate?: IntakeGate;
  /** Applies an organisation's custom parsing rules (src/parsers) to a request's lines. */
  parse?: (account: string, lines: readonly PendingLine[]) => void;
}

export interface IngestSubsystem extends Subsystem {
  /** Where every protocol hands its lines (intake.ts). */
  intake: Intake;
  /** Lets a request read its body only while the store's queue has room (admission.ts). */
  admission: IngestAdmission;
  /** What happens after lines are stored: live tail, alerts and metrics subscribe here. */
  afterStore: AfterStore;
  /** Lines acknowledged by no one yet: waiting for, or being written to, the store. */
  queuedLines(): number;
}

/**
 * The ingest path every protocol shares: admission, the intake (normalise, retention, meta rules,
 * encoding), the group-commit batcher that writes to the store, and the after-store interface.
 * The protocols themselves (ingest/<protocol>/) start after it and serve their own routes or ports.
 * Closing waits until every acknowledged line is written.
 */
export function startIngest(deps: IngestDeps): IngestSubsystem {
  const { settings } = deps;
  const admission: IngestAdmission = new IngestAdmission(() => batcher.pendingLines, {
    maxQueuedLines: settings.maxQueuedLines,
    maxReadingBytes: MAX_READING_BYTES,
    waitMs: settings.ingestWaitMs,
  });
  const batcher: GroupCommitBatcher = new GroupCommitBatcher(deps.write, {
    maxBatchLines: settings.maxBatchLines,
    gatherMs: settings.groupCommitMs,
    gatherLines: settings.groupCommitLines,
    arriving: () => admission.reading,
    onWritten: () => admission.progress(),
  });
  const afterStore = new AfterStore();
  const intake = new Intake({
    metaTypes: deps.metaTypes,
    batcher,
    lineIds: new LineIds(deps.nodeSlot),
    afterStore,
    driftToleranceMs: settings.driftToleranceMs,
    keptFrom: deps.keptFrom,
    gate: deps.gate,
    parse: deps.parse,
  });
  return {
    intake,
    admission,
    afterStore,
    queuedLines: () => batcher.pendingLines,
    close: () => batcher.drained(),
  };
}
