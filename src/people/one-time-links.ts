import { randomBytes } from 'node:crypto';
import type { ConfigKysely } from '../repository/open.js';
import type { ConfigTables } from '../repository/tables.js';
import { hashKey } from '../lib/ids.js';

export type LinkPurpose = ConfigTables['one_time_links']['purpose'];
export type LinkRow = ConfigTables['one_time_links'];

/** What a link's token is worth now. */
export type LinkState = { state: 'valid'; link: LinkRow } | { state: 'used' | 'expired' | 'unknown' };

/**
 * One-time links: an invitation (a new member chooses a password), a password reset, and the
 * first start's link that makes its opener the owner. The token is 256 random bits shown once, in
 * the e-mail or on the console; only its hash is kept. A link works once, until it expires.
 */
export class OneTimeLinks {
  constructor(private readonly db: ConfigKysely) {}

  async issue(account: string, purpose: LinkPurpose, memberId: string | null, lifetimeMs: number, now = Date.now()): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.db.transaction().execute(async (trx) => {
      // A new link replaces the member's earlier unused ones of the same purpose.
      if (memberId !== null) await trx.deleteFrom('one_time_links').where('member_id', '=', memberId).where('purpose', '=', purpose).where('used_at', 'is', null).execute();
      await trx.insertInto('one_time_links').values({ token_hash: hashKey(token), account, purpose, member_id: memberId, created_at: now, expires_at: now + lifetimeMs, used_at: null }).execute();
    });
    return token;
  }

  async inspect(token: string, now = Date.now()): Promise<LinkState> {
    const link = await this.db.selectFrom('one_time_links').selectAll().where('token_hash', '=', hashKey(token)).executeTakeFirst();
    if (!link) return { state: 'unknown' };
    if (link.used_at !== null) return { state: 'used' };
    if (Number(link.expires_at) <= now) return { state: 'expired' };
    return { state: 'valid', link };
  }

  /**
   * Spends a link inside the caller's transaction: true for exactly one caller, however many
   * nodes try at once, and only while it is unused and unexpired.
   */
  async spend(trx: ConfigKysely, token: string, now = Date.now()): Promise<boolean> {
    const result = await trx
      .updateTable('one_time_links')
      .set({ used_at: now })
      .where('token_hash', '=', hashKey(token))
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}
