import { randomBytes } from 'node:crypto';
import type { ConfigKysely } from '../repository/open.js';
import { hashKey } from '../lib/ids.js';

export interface Session {
  account: string;
  /** The service key that signed in: revoking it ends the session. */
  keyId: string;
  csrf: string;
  expiresAt: number;
}

const SESSION_MS = 7 * 24 * 3_600_000;

/**
 * Viewer sign-in sessions. The id lives only in the browser's cookie; the database keeps its hash.
 * A session is alive only while its key is unrevoked and its organisation active, so revoking
 * either (here, over the API or from the CLI) ends it at once.
 */
export class Sessions {
  constructor(private readonly db: ConfigKysely) {}

  async create(account: string, keyId: string, now = Date.now()): Promise<{ id: string; session: Session }> {
    const id = randomBytes(32).toString('base64url');
    const session = { account, keyId, csrf: randomBytes(24).toString('base64url'), expiresAt: now + SESSION_MS };
    await this.db.deleteFrom('sessions').where('expires_at', '<', now).execute();
    await this.db
      .insertInto('sessions')
      .values({ id_hash: hashKey(id), account, key_id: keyId, csrf: session.csrf, created_at: now, expires_at: session.expiresAt })
      .execute();
    return { id, session };
  }

  /** A live session whose key and organisation are still active, or undefined. */
  async get(id: string, now = Date.now()): Promise<Session | undefined> {
    const row = await this.db
      .selectFrom('sessions as s')
      .innerJoin('accounts as a', 'a.account', 's.account')
      .innerJoin('api_keys as k', (join) => join.onRef('k.id', '=', 's.key_id').onRef('k.account', '=', 's.account'))
      .select(['s.account', 's.key_id', 's.csrf', 's.expires_at'])
      .where('s.id_hash', '=', hashKey(id))
      .where('s.expires_at', '>', now)
      .where('a.active', '=', 1)
      .where('k.revoked_at', 'is', null)
      .executeTakeFirst();
    return row && { account: row.account, keyId: row.key_id, csrf: row.csrf, expiresAt: row.expires_at };
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id_hash', '=', hashKey(id)).execute();
  }
}
