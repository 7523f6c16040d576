import { randomUUID } from 'node:crypto';
import cors from '@fastify/cors';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import type { Accounts } from '../../accounts/accounts.js';
import { presentedKeys } from '../../http/credentials.js';
import { ApiError, errors, ingestWarnings } from '../../http/errors.js';
import type { IngestAdmission, Ticket } from '../admission.js';
import type { GroupCommitBatcher } from '../batcher.js';
import { UNPARSABLE_BODY, registerIngestBodyHandling } from './body.js';
import type { LineIds } from '../line-ids.js';
import type { MetaTypeRegistry } from '../../meta-fields/meta-types.js';
import { type BatchContext, type PendingLine, normaliseLine } from '../normalise.js';
import { LIMITS, type SourceParams, parseSourceParams } from './params.js';
import type { StoredBatch, StoredLine } from '../../store/types.js';
import { EncodedRows } from '../../store/row-encoding.js';

export interface IngestDeps {
  accounts: Accounts;
  metaTypes: MetaTypeRegistry;
  batcher: GroupCommitBatcher;
  admission: IngestAdmission;
  lineIds: LineIds;
  driftToleranceMs: number;
  /** The oldest time an organisation keeps lines from (its retention), in Unix ms. */
  retainedFrom: (account: string) => number;
  /**
   * Whether anything reads an organisation's stored lines themselves: a live tail (here or at
   * another node) or an alert rule. When nothing does, a request keeps only counts through its write.
   */
  readsLines: (account: string) => boolean;
  /** Hears of every request's lines once they are stored (metrics, live tail, alerting); must not throw. Logs through the request's log. */
  stored: (account: string, batch: StoredBatch, log: FastifyBaseLogger) => Promise<void>;
}

/**
 * Characters every stored row of the request repeats whatever its line: the request's hostname,
 * ip, mac and tags, plus about 128 of ids, times and separators (store/row-encoding.ts).
 */
function repeatedChars(source: SourceParams): number {
  return 128 + source.hostname.length + source.ip.length + source.mac.length + source.tags.reduce((sum, tag) => sum + tag.length + 3, 0);
}

function asObject(body: unknown): Record<string, unknown> | undefined {
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
}

/** The line array of any accepted envelope: {"lines":[...]}, or the SDKs' {"e":"ls","ls":[...]}. */
function linesOf(body: Record<string, unknown> | undefined): unknown[] {
  const lines = body?.lines ?? body?.ls;
  if (!Array.isArray(lines)) throw errors.badRequest();
  return lines;
}

/**
 * What a body will take in memory once read, judged from its headers: the body limit applies after
 * decompression, so a compressed or unsized body is counted at the limit.
 */
function expectedBodyBytes(request: FastifyRequest): number {
  return plainBodyBytes(request) ?? LIMITS.bodyBytes;
}

/** A body's size from its headers, within the limit; undefined when it is compressed or unsized. */
function plainBodyBytes(request: FastifyRequest): number | undefined {
  const length = Number(request.headers['content-length']);
  const encoded = !['', 'identity'].includes(String(request.headers['content-encoding'] ?? '').trim().toLowerCase());
  return !Number.isFinite(length) || length < 0 || encoded ? undefined : Math.min(length, LIMITS.bodyBytes);
}

/**
 * About how many bytes a request's rows take once encoded: its lines as sent plus what every row
 * repeats. A plain body's length bounds the first; a compressed one's says nothing, so a few
 * hundred bytes a line are assumed, and the buffer grows if that was short.
 */
function encodedSizeGuess(request: FastifyRequest, lines: number, source: SourceParams): number {
  return (plainBodyBytes(request) ?? lines * 256) + lines * repeatedChars(source);
}

/** A request's lines, ready to write (prepare, below). */
interface PreparedRequest {
  account: string;
  batchId: string;
  batch: StoredBatch;
  /** The rows encoded for the store (store/row-encoding.ts). */
  payload: Buffer;
  /** Lines whose meta was not indexed because of the daily cap on new fields. */
  overDailyCap: number;
}

interface Arrival {
  /** When the request's headers arrived: the receive time, and the moment client clock drift is measured at. */
  at: number;
  ticket?: Ticket;
}

/**
 * Where lines are posted. Agents configured with a trailing slash (a URL joined from a base ending
 * in "/") post to the second form of each.
 */
export const INGEST_PATHS = ['/logs/ingest', '/logs/ingest/', '/logs/agent', '/logs/agent/'] as const;

/** Ingestion: POST /logs/ingest and the agents' POST /logs/agent, with one behaviour. */
export async function ingestRoutes(app: FastifyInstance, deps: IngestDeps): Promise<void> {
  // Browser clients post cross-origin; keys travel in headers, never cookies, so any origin may.
  // The CORS plugin applies server-wide, so it is told to answer for the ingest paths only.
  await app.register(cors, {
    delegator: (request, callback) =>
      callback(null, request.url?.startsWith('/logs/') ? { origin: true, methods: ['POST', 'OPTIONS'], maxAge: 86400 } : { origin: false }),
  });
  registerIngestBodyHandling(app);

  // Before the body is read: note the arrival time (an upload may take seconds, and a busy server
  // may take more to parse it, neither of which is clock drift), then wait for admission.
  const arrivals = new WeakMap<FastifyRequest, Arrival>();
  app.addHook('onRequest', async (request) => {
    if (request.method !== 'POST') return;
    const arrival: Arrival = { at: Date.now() };
    arrivals.set(request, arrival);
    arrival.ticket = await deps.admission.admit(expectedBodyBytes(request));
  });
  // Whatever ends the request (answered, refused, or the client went away) frees its place.
  const release = (request: FastifyRequest) => arrivals.get(request)?.ticket?.release();
  app.addHook('onResponse', async (request) => release(request));
  app.addHook('onRequestAbort', async (request) => release(request));

  const authenticate = async (request: FastifyRequest, body: Record<string, unknown> | undefined): Promise<string> => {
    const keys = presentedKeys(request, { header: 'apikey', query: 'apikey' }, [body?.apikey]);
    if (keys.length === 0) throw errors.missingCredentials();
    if (keys.length > 1) throw errors.conflictingCredentials();
    const account = await deps.accounts.accountForKey(keys[0], 'ingestion');
    if (!account) throw (await deps.accounts.accountForKey(keys[0], 'service')) ? errors.serviceKeyForIngest() : errors.accountNotFound();
    return account;
  };

  /**
   * A request's lines, authenticated, normalised, judged by the meta rules and encoded: everything
   * before the write. Its own function so that the parsed body and the intermediate lines die with
   * it: an async function keeps every local it declared until it returns, and the write takes
   * about 100 ms under load, long enough for V8 to copy whatever is kept into its old generation.
   */
  const prepare = async (request: FastifyRequest): Promise<PreparedRequest> => {
    const body = request.body === UNPARSABLE_BODY ? undefined : asObject(request.body);
    const account = await authenticate(request, body);
    const source = parseSourceParams(request.query as Record<string, unknown>, body);
    const rawLines = linesOf(body);
    // Refused before any work: the rows would repeat the hostname and tags into gigabytes.
    if (rawLines.length * repeatedChars(source) > LIMITS.storedChars) throw errors.storedTooLarge();

    const receivedAt = arrivals.get(request)?.at ?? Date.now();
    const drift = source.nowMs === null ? 0 : receivedAt - source.nowMs;
    const context: BatchContext = {
      account,
      batchId: randomUUID(),
      source,
      receivedAt,
      driftMs: Math.abs(drift) > deps.driftToleranceMs ? drift : 0,
    };
    const firstId = deps.lineIds.reserve(rawLines.length);
    // Normalise every line before anything is recorded: one bad element refuses the request whole.
    const pending: PendingLine[] = rawLines.map((raw, index) => normaliseLine(raw, context, deps.lineIds.format(firstId + index)));
    // Only the normalised lines are needed from here on: the parsed body can be collected.
    request.body = undefined;
    const unindexedMeta: Record<string, number> = {};
    let bytes = 0;
    const encoded = new EncodedRows(encodedSizeGuess(request, rawLines.length, source));
    let overDailyCap = 0;
    const retainedFrom = deps.retainedFrom(account);
    // Already past its organisation's retention (an old replayed or imported line): acknowledged
    // with the rest, as it would be stored and removed at once, but not kept.
    const kept = pending.some(({ row }) => row.ts < retainedFrom) ? pending.filter(({ row }) => row.ts >= retainedFrom) : pending;
    const verdicts = await deps.metaTypes.admitAll(account, kept.map(({ metaObject }) => metaObject));
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
    const rows = deps.readsLines(account) ? kept.map(({ row }): StoredLine => row) : undefined;
    const batch: StoredBatch = { lines: kept.length, bytes, unindexedMeta, rows };
    return { account, batchId: context.batchId, batch, payload: encoded.bytesWritten(), overDailyCap };
  };

  const ingest = async (request: FastifyRequest) => {
    const { account, batchId, batch, payload, overDailyCap } = await prepare(request);
    if (batch.lines > 0) {
      const written = deps.batcher.submit(payload, batch.lines);
      // Its lines now count in the store's queue, so its place among the bodies being read is free.
      release(request);
      try {
        await written;
      } catch (error) {
        if (error instanceof ApiError) throw error;
        request.log.error({ err: error }, 'log store write failed');
        throw errors.storeUnavailable();
      }
      await deps.stored(account, batch, request.log);
    }
    if (overDailyCap === 0) return { status: 'ok', batchID: batchId };
    // The lines are stored; the client (and whoever reads its logs) learns why some meta is not searchable.
    return { status: 'ok', batchID: batchId, warnings: [ingestWarnings.metaFieldCap(overDailyCap, (await deps.metaTypes.day(account)).limit)] };
  };

  for (const path of INGEST_PATHS) app.post(path, ingest);
}
