import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Accounts } from '../../accounts/accounts.js';
import { presentedKeys } from '../../http/credentials.js';
import { errors, ingestWarnings } from '../../http/errors.js';
import { LIMITS } from '../../wire/limits.js';
import type { IngestAdmission, Ticket } from '../admission.js';
import type { Intake, PreparedRequest } from '../intake.js';
import { UNPARSABLE_BODY, registerIngestBodyHandling } from './body.js';
import { parseSourceParams } from './params.js';

export interface MezmoIngestDeps {
  accounts: Accounts;
  intake: Intake;
  admission: IngestAdmission;
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
export async function ingestRoutes(app: FastifyInstance, deps: MezmoIngestDeps): Promise<void> {
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
   * A request's lines, authenticated and prepared by the intake: everything before the write, in a
   * function of its own so that the parsed body and the intermediate lines die before the write.
   */
  const prepare = async (request: FastifyRequest): Promise<PreparedRequest> => {
    const body = request.body === UNPARSABLE_BODY ? undefined : asObject(request.body);
    const account = await authenticate(request, body);
    const source = parseSourceParams(request.query as Record<string, unknown>, body);
    const rawLines = linesOf(body);
    // Only the lines are needed from here on: the parsed body can be collected.
    request.body = undefined;
    return deps.intake.prepare({ account, source, rawLines, receivedAt: arrivals.get(request)?.at ?? Date.now(), sentBytes: plainBodyBytes(request) });
  };

  const ingest = async (request: FastifyRequest) => {
    const prepared = await prepare(request);
    // Once its lines count in the store's queue, its place among the bodies being read is free.
    await deps.intake.write(prepared, request.log, () => release(request));
    if (!prepared.overDailyCap) return { status: 'ok', batchID: prepared.batchId };
    // The lines are stored; the client (and whoever reads its logs) learns why some meta is not searchable.
    return { status: 'ok', batchID: prepared.batchId, warnings: [ingestWarnings.metaFieldCap(prepared.overDailyCap.lines, prepared.overDailyCap.limit)] };
  };

  // Browser SDKs post cross-origin; keys travel in headers, never cookies, so any origin may.
  for (const path of INGEST_PATHS) app.post(path, { config: { crossOrigin: true, permission: 'ingest' } }, ingest);
}
