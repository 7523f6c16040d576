import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { ApiError, errors } from '../http/errors.js';
import type { MetaTypeRegistry } from '../meta-fields/meta-types.js';
import { EncodedRows } from '../store/row-encoding.js';
import type { StoredBatch, StoredLine } from '../store/types.js';
import { ingestBuffers } from '../lib/buffer-pool.js';
import { LIMITS } from '../wire/limits.js';
import type { AfterStore } from './after-store.js';
import type { GroupCommitBatcher } from './batcher.js';
import type { LineIds } from './line-ids.js';
import { type BatchContext, type PendingLine, type SourceParams, normaliseLine } from './normalise.js';

/** The ways in, as the per-protocol metrics label them. */
export const INGEST_PROTOCOLS = ['mezmo', 'otlp-http', 'otlp-grpc', 'elasticsearch', 'loki', 'syslog-tcp', 'syslog-tls', 'syslog-udp', 'relp'] as const;
export type IngestProtocol = (typeof INGEST_PROTOCOLS)[number];

/** What a protocol hands the intake: one request's raw lines, as the Mezmo API shapes a line. */
export interface IntakeRequest {
  protocol: IngestProtocol;
  account: string;
  source: SourceParams;
  /** Line objects ({line, app, level, timestamp, meta, ...}), not yet checked. */
  rawLines: unknown[];
  /** When the request arrived: the receive time, and the moment client clock drift is measured at. */
  receivedAt: number;
  /** About how many bytes the lines take as sent, to size the encoding buffer (it grows if short). */
  sentBytes: number | undefined;
}

/** A request's lines, ready to write. */
export interface PreparedRequest {
  account: string;
  batchId: string;
  batch: StoredBatch;
  /** The rows encoded for the store (store/row-encoding.ts), in a buffer of the ingest pool when large enough. */
  payload: Buffer;
  /** Gives the payload's buffer back to the pool (lib/buffer-pool.ts); `write` calls it once the rows are stored. */
  givePayloadBack: () => void;
  /** Lines whose meta was not indexed because of the daily cap on new fields, and the cap; absent when none. */
  overDailyCap?: { lines: number; limit: number };
}

/** What an exclusion rule decides for a line: stored, kept from the store but tailed and alerted on, or dropped. */
export type ExclusionVerdict = 'store' | 'indexonly' | 'drop';

/**
 * What an organisation lets in (src/ingestion-controls): its ingestion may be suspended, and its
 * exclusion rules keep lines from the store. Asked of every request, so answered from memory.
 */
export interface IntakeGate {
  /** Throws the catalogue's ingestionSuspended (403) while the organisation's ingestion is suspended. */
  admit(account: string): void;
  /** The verdict for each of the organisation's lines (and the excluded ones counted), or undefined when no rule is active. */
  exclusionsFor(account: string): ((line: StoredLine) => ExclusionVerdict) | undefined;
}

export interface IntakeDeps {
  metaTypes: MetaTypeRegistry;
  batcher: GroupCommitBatcher;
  lineIds: LineIds;
  afterStore: AfterStore;
  driftToleranceMs: number;
  /** The oldest time an organisation keeps lines from (its retention), in Unix ms. */
  keptFrom: (account: string) => number;
  /** Suspension and exclusion rules; absent, everything is let in. */
  gate?: IntakeGate;
  /** Applies an organisation's custom parsing rules (src/parsers), as this node has them now, to a request's lines. */
  parse?: (account: string, lines: readonly PendingLine[]) => void;
}

/**
 * Characters every stored row of the request repeats whatever its line: the request's hostname,
 * ip, mac and tags, plus about 128 of ids, times and separators (store/row-encoding.ts).
 */
function repeatedChars(source: SourceParams): number {
  return 128 + source.hostname.length + source.ip.length + source.mac.length + source.tags.reduce((sum, tag) => sum + tag.length + 3, 0);
}

/**
 * The path every protocol's lines take once the protocol has read them and knows their
 * organisation: normalise, retention, the meta type rule, encoding (prepare), then the durable
 * write and the after-store subscribers (write). A protocol answers its client only after write.
 */
export class Intake {
  constructor(private readonly deps: IntakeDeps) {}

  /**
   * Throws (the catalogue's 403, as Mezmo answers a suspended account) while the organisation's
   * ingestion is suspended. prepare asks it first; a protocol may ask it before reading a body.
   */
  admit(account: string): void {
    this.deps.gate?.admit(account);
  }

  /**
   * Everything before the write. Its own function so that the intermediate lines die with it: an
   * async function keeps every local it declared until it returns, and the write takes about
   * 100 ms under load, long enough for V8 to copy whatever is kept into its old generation.
   * One bad line refuses the request whole, before anything is recorded.
   */
  async prepare(request: IntakeRequest): Promise<PreparedRequest> {
    const { protocol, account, source, rawLines, receivedAt } = request;
    this.admit(account);
    // Refused before any work: the rows would repeat the hostname and tags into gigabytes.
    const repeated = rawLines.length * repeatedChars(source);
    if (repeated > LIMITS.storedChars) throw errors.storedTooLarge();
    const drift = source.nowMs === null ? 0 : receivedAt - source.nowMs;
    const context: BatchContext = {
      account,
      batchId: randomUUID(),
      source,
      receivedAt,
      driftMs: Math.abs(drift) > this.deps.driftToleranceMs ? drift : 0,
    };
    const { lineIds } = this.deps;
    const firstId = lineIds.reserve(rawLines.length);
    const pending: PendingLine[] = rawLines.map((raw, index) => normaliseLine(raw, context, lineIds.format(firstId + index)));
    this.deps.parse?.(account, pending);
    const unindexedMeta: Record<string, number> = {};
    let bytes = 0;
    const encoded = new EncodedRows((request.sentBytes ?? rawLines.length * 256) + repeated, ingestBuffers);
    let overDailyCap = 0;
    const keptFrom = this.deps.keptFrom(account);
    // Already past its organisation's retention (an old replayed or imported line): acknowledged
    // with the rest, as it would be stored and removed at once, but not kept.
    const retained = pending.some(({ row }) => row.ts < keptFrom) ? pending.filter(({ row }) => row.ts >= keptFrom) : pending;
    // Exclusion rules, after normalise so that their queries see the parsed fields: a line an
    // `indexonly` rule matches is not stored but still reaches live tail and alerts; one another
    // active rule matches goes nowhere.
    const exclude = this.deps.gate?.exclusionsFor(account);
    let kept = retained;
    let published = retained;
    if (exclude) {
      const verdicts = retained.map(({ row }) => exclude(row));
      kept = retained.filter((_, index) => verdicts[index] === 'store');
      published = retained.filter((_, index) => verdicts[index] !== 'drop');
      for (let index = 0; index < retained.length; index++) {
        // Not stored, so the meta type rule does not judge it; tails search its meta as given.
        if (verdicts[index] === 'indexonly') retained[index].row.meta_indexed = retained[index].metaObject !== null;
      }
    }
    const verdicts = await this.deps.metaTypes.admitAll(account, kept.map(({ metaObject }) => metaObject));
    await this.settleFormatFields(account, kept);
    for (let index = 0; index < kept.length; index++) {
      const { row } = kept[index];
      const verdict = verdicts[index];
      row.meta_indexed = verdict === 'indexed';
      if (verdict !== null && verdict !== 'indexed') row.meta_note = verdict === 'typeConflict' ? 'type-conflict' : 'daily-cap';
      if (verdict === 'dailyCap') overDailyCap++;
      if (row.meta_note) unindexedMeta[row.meta_note] = (unindexedMeta[row.meta_note] ?? 0) + 1;
      bytes += row.size;
      encoded.add(row);
      // A backstop: the estimate above leaves room for what the lines themselves carry.
      if (encoded.chars > 2 * LIMITS.storedChars) throw errors.storedTooLarge();
    }
    // The rows themselves only for whoever reads them: otherwise the counts are all that is kept.
    const rows = this.deps.afterStore.wantsRows(account) ? published.map(({ row }): StoredLine => row) : undefined;
    const batch: StoredBatch = { protocol, lines: kept.length, bytes, unindexedMeta, rows };
    return {
      account,
      batchId: context.batchId,
      batch,
      payload: encoded.bytesWritten(),
      givePayloadBack: () => encoded.giveBack(),
      overDailyCap: overDailyCap > 0 ? { lines: overDailyCap, limit: (await this.deps.metaTypes.day(account)).limit } : undefined,
    };
  }

  /** Format-parsed fields (ingest/formats) under the organisation's first-type-wins rule; most requests have none. */
  private async settleFormatFields(account: string, lines: PendingLine[]): Promise<void> {
    let parsed: PendingLine[] | undefined;
    for (const line of lines) if (line.formatFields) (parsed ??= []).push(line);
    if (!parsed) return;
    if (!(await this.deps.metaTypes.settleParsedTypes(account, parsed.map((line) => line.formatFields!)))) return;
    for (const line of parsed) line.row.fields = JSON.stringify(line.formatFields);
  }

  /**
   * Writes a prepared request and waits until it is durable, then tells the after-store
   * subscribers. `queued` is called once its lines count in the store's queue (the protocol can
   * free its place among the requests being read). A store failure is the catalogue's 503.
   */
  async write(prepared: PreparedRequest, log: FastifyBaseLogger, queued?: () => void): Promise<void> {
    if (prepared.batch.lines === 0) {
      prepared.givePayloadBack();
      // Lines an indexonly exclusion kept from the store still go to live tail and alerts.
      if (prepared.batch.rows?.length) await this.deps.afterStore.publish(prepared.account, prepared.batch, log);
      return;
    }
    const written = this.deps.batcher.submit(prepared.payload, prepared.batch.lines);
    queued?.();
    try {
      await written;
    } catch (error) {
      if (error instanceof ApiError) throw error;
      log.error({ err: error }, 'log store write failed');
      throw errors.storeUnavailable();
    }
    // Only once stored: a failed write may be tried again with the same payload (syslog does).
    prepared.givePayloadBack();
    await this.deps.afterStore.publish(prepared.account, prepared.batch, log);
  }
}
