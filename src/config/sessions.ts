import { randomBytes } from 'node:crypto';
import type { ConfigDb } from './database.js';
import { hashKey } from './ids.js';

export interface Session {
  account: string;
  csrf: string;
  expiresAt: number;
}

const SESSION_MS = 7 * 24 * 3_600_000;

/** Viewer sign-in sessions. The id lives only in the browser's cookie; the database keeps its hash. */
export class Sessions {
  constructor(private readonly db: ConfigDb) {}

  create(account: string, now = Date.now()): { id: string; session: Session } {
    const id = randomBytes(32).toString('base64url');
    const session = { account, csrf: randomBytes(24).toString('base64url'), expiresAt: now + SESSION_MS };
    this.db.prepare(`DELETE FROM sessions WHERE expires_at < ?`).run(now);
    this.db.prepare(`INSERT INTO sessions (id_hash, account, csrf, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`).run(hashKey(id), account, session.csrf, now, session.expiresAt);
    return { id, session };
  }

  /** A live session of an active account, or undefined. */
  get(id: string, now = Date.now()): Session | undefined {
    const row = this.db
      .prepare<[string, number], { account: string; csrf: string; expires_at: number }>(
        `SELECT s.account, s.csrf, s.expires_at FROM sessions s JOIN accounts a ON a.account = s.account
          WHERE s.id_hash = ? AND s.expires_at > ? AND a.active = 1`,
      )
      .get(hashKey(id), now);
    return row && { account: row.account, csrf: row.csrf, expiresAt: row.expires_at };
  }

  delete(id: string): void {
    this.db.prepare(`DELETE FROM sessions WHERE id_hash = ?`).run(hashKey(id));
  }
}
