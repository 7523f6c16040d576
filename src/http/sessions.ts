import { randomBytes } from 'node:crypto';
import type { ConfigKysely } from '../repository/open.js';
import { hashKey } from '../lib/ids.js';

export interface Session {
  account: string;
  /** The service key that signed in (revoking it ends the session), or '' for a member's session. */
  keyId: string;
  /** The member who signed in, or null for a service key's session. */
  memberId: string | null;
  csrf: string;
  expiresAt: number;
}

/** Who signs in: a service key, or a member. */
export type SessionOwner = { keyId: string } | { memberId: string };

const SESSION_MS = 7 * 24 * 3_600_000;

/**
 * Viewer sign-in sessions. The id lives only in the browser's cookie; the database keeps its hash,
 * so every node knows every session. A key's session is alive only while its key is unrevoked; a
 * member's while the member exists (removing, demoting or resetting a member deletes their
 * sessions); both only while the organisation is active.
 */
export class Sessions {
  constructor(private readonly db: ConfigKysely) {}

  async create(account: string, owner: SessionOwner, now = Date.now()): Promise<{ id: string; session: Session }> {
    const id = randomBytes(32).toString('base64url');
    const keyId = 'keyId' in owner ? owner.keyId : '';
    const memberId = 'memberId' in owner ? owner.memberId : null;
    const session: Session = { account, keyId, memberId, csrf: randomBytes(24).toString('base64url'), expiresAt: now + SESSION_MS };
    await this.db.deleteFrom('sessions').where('expires_at', '<', now).execute();
    await this.db
      .insertInto('sessions')
      .values({ id_hash: hashKey(id), account, key_id: keyId, member_id: memberId, csrf: session.csrf, created_at: now, expires_at: session.expiresAt })
      .execute();
    return { id, session };
  }

  /** A live session whose key (or member) and organisation are still active, or undefined. */
  async get(id: string, now = Date.now()): Promise<Session | undefined> {
    const row = await this.db
      .selectFrom('sessions as s')
      .innerJoin('accounts as a', 'a.account', 's.account')
      .leftJoin('api_keys as k', (join) => join.onRef('k.id', '=', 's.key_id').onRef('k.account', '=', 's.account'))
      .leftJoin('members as m', (join) => join.onRef('m.id', '=', 's.member_id').onRef('m.account', '=', 's.account'))
      .select(['s.account', 's.key_id', 's.member_id', 's.csrf', 's.expires_at'])
      .where('s.id_hash', '=', hashKey(id))
      .where('s.expires_at', '>', now)
      .where('a.active', '=', 1)
      .where((eb) =>
        eb.or([
          eb.and([eb('s.member_id', 'is', null), eb('k.id', 'is not', null), eb('k.revoked_at', 'is', null)]),
          eb.and([eb('s.member_id', 'is not', null), eb('m.id', 'is not', null)]),
        ]),
      )
      .executeTakeFirst();
    return row && { account: row.account, keyId: row.key_id, memberId: row.member_id, csrf: row.csrf, expiresAt: Number(row.expires_at) };
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id_hash', '=', hashKey(id)).execute();
  }

  /** Ends every session of a member (removed, demoted, or a new password), on every node at its next request. */
  async endForMember(memberId: string, trx: ConfigKysely = this.db): Promise<void> {
    await trx.deleteFrom('sessions').where('member_id', '=', memberId).execute();
  }
}
