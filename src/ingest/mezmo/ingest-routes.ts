import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Accounts } from '../../accounts/accounts.js';
import { presentedKeys } from '../../http/credentials.js';
import { errors, ingestWarnings } from '../../http/errors.js';
import type { IngestAdmission } from '../admission.js';
import { plainBodyBytes, trackArrivals } from '../http-body.js';
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
 * Where lines are posted. Agents configured with a trailing slash (a URL joined from a base ending
 * in "/") post to the second form of each.
 */
export const INGEST_PATHS = ['/logs/ingest', '/logs/ingest/', '/logs/agent', '/logs/agent/'] as const;

/** Ingestion: POST /logs/ingest and the agents' POST /logs/agent, with one behaviour. */
export async function ingestRoutes(app: FastifyInstance, deps: MezmoIngestDeps): Promise<void> {
  registerIngestBodyHandling(app);

  // Before the body is read: note the arrival time (an upload may take seconds, and a busy server
  // may take more to parse it, neither of which is clock drift), then wait for admission.
  const arrivals = trackArrivals(app, deps.admission, { everyPost: true });
  const release = arrivals.release;

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
    return deps.intake.prepare({ protocol: 'mezmo', account, source, rawLines, receivedAt: arrivals.arrivedAt(request), sentBytes: plainBodyBytes(request) });
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
