import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { Accounts } from '../../accounts/accounts.js';
import { presentedKeys } from '../../http/credentials.js';
import { errors, ingestWarnings } from '../../http/errors.js';
import type { IngestAdmission } from '../admission.js';
import type { Intake, IngestProtocol } from '../intake.js';
import type { OtlpLine } from './mapping.js';

export interface OtlpDeps {
  accounts: Accounts;
  intake: Intake;
  admission: IngestAdmission;
}

/** The OTLP source: no request-wide host (each line names its own), no tags, no client clock. */
const SOURCE = { hostname: 'unknown', ip: '', mac: '', tags: [], nowMs: null };

/**
 * The keys a request presents, read as the HTTP API reads them: `Authorization: Basic` (the key as
 * user, as password, or both), `Bearer` or `Token`, and the `apikey` header (or gRPC metadata entry).
 */
export function keysOf(headers: Record<string, unknown>): string[] {
  return presentedKeys({ headers, query: {} } as unknown as FastifyRequest, { header: 'apikey', query: 'apikey' });
}

/** The organisation of the one ingestion key presented, or the catalogue's 401 / 403. */
export async function authenticate(accounts: Accounts, keys: string[]): Promise<string> {
  if (keys.length === 0) throw errors.missingCredentials();
  if (keys.length > 1) throw errors.conflictingCredentials();
  const account = await accounts.accountForKey(keys[0], 'ingestion');
  if (!account) throw (await accounts.accountForKey(keys[0], 'service')) ? errors.serviceKeyForIngest() : errors.accountNotFound();
  return account;
}

/**
 * One OTLP request through the intake: mapped by `lines` (all or nothing: a record that is not OTLP refuses
 * the request), prepared and durably written. Returns the warning a partial_success carries, if any.
 */
export async function ingestOtlp(
  deps: OtlpDeps,
  request: { protocol: IngestProtocol; account: string; lines: () => OtlpLine[]; receivedAt: number; sentBytes: number | undefined; log: FastifyBaseLogger; queued?: () => void },
): Promise<string | undefined> {
  const prepare = () => deps.intake.prepare({ protocol: request.protocol, account: request.account, source: SOURCE, rawLines: request.lines(), receivedAt: request.receivedAt, sentBytes: request.sentBytes });
  const prepared = await prepare();
  await deps.intake.write(prepared, request.log, request.queued);
  return prepared.overDailyCap ? ingestWarnings.metaFieldCap(prepared.overDailyCap.lines, prepared.overDailyCap.limit) : undefined;
}
