import { randomBytes } from 'node:crypto';
import type { ConfigDb } from './database.js';
import { hashKey } from './ids.js';

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
  constructor(private readonly db: ConfigDb) {}

  create(account: string, keyId: string, now = Date.now()): { id: string; session: Session } {
    const id = randomBytes(32).toString('base64url');
    const session = { account, keyId, csrf: randomBytes(24).toString('base64url'), expiresAt: now + SESSION_MS };
    this.db.prepare(`DELETE FROM sessions WHERE expires_at < ?`).run(now);
    this.db
      .prepare(`INSERT INTO sessions (id_hash, account, key_id, csrf, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)`)
      .run(hashKey(id), account, keyId, session.csrf, now, session.expiresAt);
    return { id, session };
  }

  /** A live session whose key and organisation are still active, or undefined. */
  get(id: string, now = Date.now()): Session | undefined {
    const row = this.db
      .prepare<[string, number], { account: string; key_id: string; csrf: string; expires_at: number }>(
        `SELECT s.account, s.key_id, s.csrf, s.expires_at FROM sessions s
           JOIN accounts a ON a.account = s.account
           JOIN api_keys k ON k.id = s.key_id AND k.account = s.account
          WHERE s.id_hash = ? AND s.expires_at > ? AND a.active = 1 AND k.revoked_at IS NULL`,
      )
      .get(hashKey(id), now);
    return row && { account: row.account, keyId: row.key_id, csrf: row.csrf, expiresAt: row.expires_at };
  }

  delete(id: string): void {
    this.db.prepare(`DELETE FROM sessions WHERE id_hash = ?`).run(hashKey(id));
  }
}
