import type { ConfigKysely } from '../repository/open.js';
import type { AuditPage, AuditRecord } from '../wire/types.js';

export type { AuditRecord };

export interface AuditQuery {
  from?: number;
  to?: number;
  actor?: string;
  resource?: string;
  /** The `next` of the previous page. */
  cursor?: number;
  limit: number;
}

/** Field names whose values are secrets: keys, passwords, tokens and webhook headers never reach the trail in clear. */
const SECRET_FIELD = /^(key|servicekey|ingestionkey|apikey|password|secret|token|authorization|headers|secretkey|accesskey|accountkey|client_secret)$/i;
export const MASK = '********';

/** A copy of a value with every secret field's value masked, however deep. */
export function maskSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskSecrets);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  // A Slack or Teams channel's address is its credential, as are the index-rate alert's Slack addresses.
  const bearerUrl = ['slack', 'teams'].includes(String((value as { integration?: unknown }).integration));
  for (const [name, field] of Object.entries(value)) {
    if ((bearerUrl && name === 'url') || (name === 'slack' && Array.isArray(field))) out[name] = MASK;
    else if (!SECRET_FIELD.test(name) || field === null || field === undefined || field === '') out[name] = maskSecrets(field);
    else if (typeof field === 'object' && !Array.isArray(field)) out[name] = Object.fromEntries(Object.keys(field).map((header) => [header, MASK]));
    else out[name] = MASK;
  }
  return out;
}

const PAGE_MAX = 500;

/**
 * The audit trail: who changed which configuration, when, from where, and the values before and
 * after (secrets masked), kept per organisation in the configuration database so every node
 * writes and reads the same trail. Sign-ins and failed sign-ins are recorded too.
 */
export class AuditTrail {
  constructor(private readonly db: ConfigKysely) {}

  async record(account: string, entry: Omit<AuditRecord, 'at'>, at = Date.now(), trx: ConfigKysely = this.db): Promise<void> {
    const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(maskSecrets(value)));
    await trx
      .insertInto('audit_records')
      .values({
        account,
        at,
        actor: entry.actor,
        address: entry.address,
        action: entry.action,
        resource: entry.resource,
        resource_id: entry.id,
        before_json: json(entry.before),
        after_json: json(entry.after),
      })
      .execute();
  }

  /** One page, newest first, and the cursor of the next (null on the last page). */
  async list(account: string, query: AuditQuery): Promise<AuditPage> {
    const limit = Math.min(Math.max(1, query.limit), PAGE_MAX);
    let select = this.db.selectFrom('audit_records').selectAll().where('account', '=', account);
    if (query.from !== undefined) select = select.where('at', '>=', query.from);
    if (query.to !== undefined) select = select.where('at', '<=', query.to);
    if (query.actor) select = select.where('actor', '=', query.actor);
    if (query.resource) select = select.where('resource', '=', query.resource);
    if (query.cursor !== undefined) select = select.where('id', '<', query.cursor);
    const rows = await select.orderBy('id', 'desc').limit(limit + 1).execute();
    const page = rows.slice(0, limit);
    return {
      records: page.map((row) => ({
        at: Number(row.at),
        actor: row.actor,
        address: row.address,
        action: row.action,
        resource: row.resource,
        id: row.resource_id,
        before: row.before_json === null ? null : JSON.parse(row.before_json),
        after: row.after_json === null ? null : JSON.parse(row.after_json),
      })),
      next: rows.length > limit ? String(page[page.length - 1].id) : null,
    };
  }
}
