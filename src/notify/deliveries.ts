import { randomUUID } from 'node:crypto';
import type { DeliveryLogEntry } from '../wire/types.js';
import { type ConfigKysely, onPostgres } from '../repository/open.js';
import { type AccessScope, scopeWithin } from '../query/access-scope.js';

export interface NewDelivery {
  account: string;
  fireId: number | null;
  integration: string;
  target: string;
  /** The message as JSON: whatever node sends it needs nothing else. */
  message: string;
  /** Who set the target: `member:<id>` or a key's id (service-auth's setterOf); null for the server's own. */
  setBy?: string | null;
  /** The access scopes that bound what it carries; empty or absent: unbounded. */
  scopes?: AccessScope[];
  /** Why it is not sent (its setter is gone): recorded as failed, with that reason as its one attempt. */
  held?: string | null;
}

/** Who reads the delivery log, when their scope limits it: they see their own deliveries, and those bounded inside their scope. */
export interface DeliveryReader {
  setBy: string;
  scope: AccessScope;
}

export interface ClaimedDelivery {
  id: number;
  message: string;
  attempts: number;
  /** This claim's token: recording the outcome or renewing the claim needs it. */
  token: string;
  /** Who set its target; the delivery stops if that member is gone by the time it is sent. */
  setBy: string | null;
}

export interface AttemptOutcome {
  at: number;
  outcome: string;
  detail: string;
  statusCode: number | null;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  nextAttemptAt: number;
}

/**
 * The delivery outbox's rows. Nodes take due deliveries by claiming them for a lease: on
 * PostgreSQL with `FOR UPDATE SKIP LOCKED`, so two nodes never take the same one, and a delivery
 * whose node died before recording its outcome is due again when the lease runs out.
 */
export class Deliveries {
  constructor(
    private readonly db: ConfigKysely,
    /** This node's slot, recorded with its claims so an operator can see who holds one. */
    private readonly node = 0,
  ) {}

  /** Queues a delivery, inside `trx` when given (the transaction that decided to send it). */
  async enqueue(delivery: NewDelivery, now: number, trx: ConfigKysely = this.db): Promise<number> {
    const held = delivery.held ?? null;
    const row = await trx
      .insertInto('deliveries')
      .values({
        account: delivery.account,
        fire_id: delivery.fireId,
        integration: delivery.integration,
        target: delivery.target,
        // A held delivery keeps no lines: nothing will ever send them.
        message: held === null ? delivery.message : '{}',
        status: held === null ? 'pending' : 'failed',
        attempts: held === null ? 0 : 1,
        next_attempt_at: now,
        created_at: now,
        updated_at: now,
        set_by: delivery.setBy ?? null,
        scope_json: delivery.scopes?.length ? JSON.stringify(delivery.scopes) : null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const id = Number(row.id);
    if (held !== null) await trx.insertInto('delivery_attempts').values({ delivery_id: id, at: now, outcome: 'held', detail: held, status_code: null }).execute();
    return id;
  }

  /** Claims up to `limit` due deliveries until `now + leaseMs`. */
  async claimDue(now: number, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    return this.db.transaction().execute(async (trx) => {
      let due = trx
        .selectFrom('deliveries')
        .select(['id', 'message', 'attempts', 'set_by'])
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]))
        .orderBy('next_attempt_at')
        .orderBy('id')
        .limit(limit);
      // SQLite runs one writing transaction at a time, so its claim needs no row locks.
      if (onPostgres(trx)) due = due.forUpdate().skipLocked();
      const rows = await due.execute();
      if (rows.length === 0) return [];
      const token = randomUUID();
      await trx
        .updateTable('deliveries')
        .set({ claimed_until: now + leaseMs, claimed_by: this.node, claim_token: token })
        .where(
          'id',
          'in',
          rows.map((row) => row.id),
        )
        .execute();
      return rows.map((row) => ({ id: Number(row.id), message: row.message, attempts: Number(row.attempts), token, setBy: row.set_by }));
    });
  }

  /** Keeps this node's claims (by their tokens) on deliveries it is still sending. */
  async extendClaims(tokens: string[], until: number): Promise<void> {
    if (tokens.length === 0) return;
    await this.db.updateTable('deliveries').set({ claimed_until: until }).where('claim_token', 'in', [...new Set(tokens)]).where('status', '=', 'pending').execute();
  }

  /** When the next pending delivery falls due (its retry time, or the end of its claim), if any. */
  async nextDueAt(): Promise<number | null> {
    const rows = await this.db
      .selectFrom('deliveries')
      .select(['next_attempt_at', 'claimed_until'])
      .where('status', '=', 'pending')
      .orderBy('next_attempt_at')
      .limit(64)
      .execute();
    if (rows.length === 0) return null;
    return Math.min(...rows.map((row) => Math.max(Number(row.next_attempt_at), Number(row.claimed_until ?? 0))));
  }

  /**
   * Records an attempt and the delivery's new state, and releases the claim. Returns false, and
   * records nothing, when the claim is no longer this one's (it ran out and another node took the
   * delivery): that node's outcome is the one that counts.
   */
  async recordAttempt(id: number, token: string, attempt: AttemptOutcome): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('deliveries')
        .set({ status: attempt.status, attempts: attempt.attempts, next_attempt_at: attempt.nextAttemptAt, updated_at: attempt.at, claimed_until: null, claimed_by: null, claim_token: null })
        .where('id', '=', id)
        .where('claim_token', '=', token)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) return false;
      await trx
        .insertInto('delivery_attempts')
        .values({ delivery_id: id, at: attempt.at, outcome: attempt.outcome, detail: attempt.detail, status_code: attempt.statusCode })
        .execute();
      return true;
    });
  }

  /**
   * An organisation's recent deliveries with every attempt, newest first; only one view's when
   * `viewid` is given. A `reader` whose scope limits them sees only their own deliveries (the
   * targets they set, the exports they asked for) and those whose content is bounded inside their
   * scope: no count, target or name of a view whose lines they may not see.
   */
  async log(account: string, limit: number, viewid?: string, reader?: DeliveryReader): Promise<DeliveryLogEntry[]> {
    let query = this.db
      .selectFrom('deliveries as d')
      .leftJoin('alert_fires as f', 'f.id', 'd.fire_id')
      .select(['d.id', 'd.integration', 'd.target', 'd.status', 'd.created_at', 'd.updated_at', 'd.set_by', 'd.scope_json', 'f.viewid', 'f.alertid', 'f.kind', 'f.window_start', 'f.matches'])
      .where('d.account', '=', account);
    if (viewid !== undefined) query = query.where('f.viewid', '=', viewid);
    if (reader) query = query.where((eb) => eb.or([eb('d.set_by', '=', reader.setBy), eb.and([eb('d.fire_id', 'is not', null), eb('d.scope_json', 'is not', null)])]));
    const visible = (row: { set_by: string | null; scope_json: string | null }) =>
      !reader || row.set_by === reader.setBy || (JSON.parse(row.scope_json ?? '[]') as AccessScope[]).some((scope) => scopeWithin(scope, reader.scope));
    const rows: Awaited<ReturnType<typeof query.execute>> = [];
    // Read in pages until `limit` visible rows are found: a scoped reader skips others' deliveries.
    for (let before = Number.MAX_SAFE_INTEGER; rows.length < limit; ) {
      const page = await query.where('d.id', '<', before).orderBy('d.id', 'desc').limit(limit).execute();
      rows.push(...page.filter(visible).slice(0, limit - rows.length));
      if (page.length < limit) break;
      before = Number(page[page.length - 1].id);
    }
    const ids = rows.map((row) => Number(row.id));
    const attempts = ids.length
      ? await this.db
          .selectFrom('delivery_attempts')
          .select(['delivery_id', 'at', 'outcome', 'detail', 'status_code'])
          .where('delivery_id', 'in', ids)
          .orderBy('id')
          .execute()
      : [];
    const byDelivery = new Map<number, DeliveryLogEntry['attempts']>();
    for (const attempt of attempts) {
      const list = byDelivery.get(Number(attempt.delivery_id)) ?? [];
      list.push({ at: Number(attempt.at), outcome: attempt.outcome, detail: attempt.detail, status: attempt.status_code });
      byDelivery.set(Number(attempt.delivery_id), list);
    }
    return rows.map((row) => {
      const tried = byDelivery.get(Number(row.id)) ?? [];
      return {
        id: Number(row.id),
        integration: row.integration,
        target: row.target,
        status: row.status,
        viewid: row.viewid,
        alertid: row.alertid,
        kind: row.kind,
        windowStart: row.window_start === null ? null : Number(row.window_start),
        matches: row.matches === null ? null : Number(row.matches),
        created: Number(row.created_at),
        updated: Number(row.updated_at),
        retries: Math.max(0, tried.length - 1),
        attempts: tried,
      };
    });
  }
}
