import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ConfigKysely } from '../repository/open.js';

/** How long a suspension token (POST /v1/config/ingestion/suspend) may be confirmed for. */
export const SUSPEND_TOKEN_MS = 10 * 60_000;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Whether an organisation's ingestion is suspended, as Mezmo's ingestion control has it: a suspension
 * is asked for (which hands out a token) and then confirmed with that token, so one call cannot stop
 * ingestion by mistake; resuming takes one call. Kept in the configuration database, which every node
 * reads (gate.ts).
 */
export class IngestionSuspension {
  constructor(
    private readonly db: ConfigKysely,
    private readonly now: () => number = Date.now,
  ) {}

  async isSuspended(account: string): Promise<boolean> {
    const row = await this.db.selectFrom('ingestion_control').select('suspended').where('account', '=', account).executeTakeFirst();
    return row?.suspended === 1;
  }

  /** A fresh token that confirms the suspension within SUSPEND_TOKEN_MS; any earlier token stops working. */
  async request(account: string): Promise<string> {
    const token = randomBytes(16).toString('hex');
    const at = this.now();
    const pending = { token_hash: hashToken(token), token_expires_at: at + SUSPEND_TOKEN_MS, changed_at: at };
    await this.db
      .insertInto('ingestion_control')
      .values({ account, suspended: 0, ...pending })
      .onConflict((conflict) => conflict.column('account').doUpdateSet(pending))
      .execute();
    return token;
  }

  /** Suspends with the token `request` gave: false (and nothing changes) for any other, a used or an expired one. */
  async confirm(account: string, token: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('ingestion_control').select(['token_hash', 'token_expires_at']).where('account', '=', account).executeTakeFirst();
      if (!row?.token_hash || row.token_expires_at === null || row.token_expires_at < this.now()) return false;
      const given = Buffer.from(hashToken(token));
      if (!timingSafeEqual(given, Buffer.from(row.token_hash))) return false;
      // Only the token seen above: two confirmations at once suspend once.
      const result = await trx
        .updateTable('ingestion_control')
        .set({ suspended: 1, token_hash: null, token_expires_at: null, changed_at: this.now() })
        .where('account', '=', account)
        .where('token_hash', '=', row.token_hash)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    });
  }

  async resume(account: string): Promise<void> {
    await this.db
      .updateTable('ingestion_control')
      .set({ suspended: 0, token_hash: null, token_expires_at: null, changed_at: this.now() })
      .where('account', '=', account)
      .execute();
  }

  async suspendedAccounts(): Promise<string[]> {
    const rows = await this.db.selectFrom('ingestion_control').select('account').where('suspended', '=', 1).execute();
    return rows.map((row) => row.account);
  }
}
