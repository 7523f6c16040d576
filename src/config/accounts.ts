import type { ConfigDb } from './database.js';
import { hashKey, newId, newSecretKey } from './ids.js';

export type KeyType = 'ingestion' | 'service';

export interface NewAccount {
  account: string;
  ingestionKey: string;
  serviceKey: string;
}

export interface NewKey {
  id: string;
  account: string;
  type: KeyType;
  name: string;
  key: string;
}

/** A key as the configuration API shows it: never the key itself, which is stored only hashed. */
export interface KeySummary {
  id: string;
  name: string;
  type: KeyType;
  /** Unix ms, as Mezmo's keys API reports it. */
  created: number;
}

export interface AccountSummary {
  account: string;
  name: string;
  active: boolean;
  createdAt: string;
  /** Days its lines are kept when set for this organisation; null follows the server's default. */
  retentionDays: number | null;
}

/** The longest retention an organisation may have: about ten years. */
export const MAX_RETENTION_DAYS = 3650;

export class AccountError extends Error {}

/** A key that authenticated a request: whose it is, and its id (so what it opened can be revoked with it). */
export interface ActiveKey {
  account: string;
  keyId: string;
}

/**
 * Organisations (accounts) and their API keys. Keys are stored as SHA-256 hashes only; the
 * clear key is returned once, at creation.
 */
export class Accounts {
  private readonly findKey;
  private readonly insertKey;
  private readonly liveKey;
  private readonly retentionOf;

  constructor(private readonly db: ConfigDb) {
    this.findKey = db.prepare<[string, KeyType], { account: string; id: string }>(
      `SELECT k.account, k.id FROM api_keys k JOIN accounts a ON a.account = k.account
        WHERE k.key_hash = ? AND k.type = ? AND k.revoked_at IS NULL AND a.active = 1`,
    );
    this.retentionOf = db.prepare<[string], { retention_days: number | null }>(`SELECT retention_days FROM accounts WHERE account = ?`);
    this.liveKey = db.prepare<[string], { account: string; deactivated_at: number | null }>(
      `SELECT k.account, a.deactivated_at FROM api_keys k JOIN accounts a ON a.account = k.account
        WHERE k.id = ? AND k.revoked_at IS NULL AND a.active = 1`,
    );
    this.insertKey = db.prepare(
      `INSERT INTO api_keys (id, account, type, name, key_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
    );
  }

  /** The account an active key of this type belongs to, or null (unknown, revoked or inactive). */
  accountForKey(key: string, type: KeyType): string | null {
    return this.findActiveKey(key, type)?.account ?? null;
  }

  /** The account and id of an active key of this type, or null (unknown, revoked or inactive). */
  findActiveKey(key: string, type: KeyType): ActiveKey | null {
    const row = this.findKey.get(hashKey(key), type);
    return row ? { account: row.account, keyId: row.id } : null;
  }

  /**
   * Whether a key, by id, may still act: not revoked, and its organisation active. Whatever a key
   * opened (sessions, live tails, e-mailed export links) asks this, so revocation reaches it. With
   * `openedAt`, also whether the organisation has not been deactivated since: what a deactivation
   * ended stays ended after the organisation is reactivated.
   */
  keyIsLive(keyId: string, openedAt?: number): boolean {
    const key = this.liveKey.get(keyId);
    if (key === undefined) return false;
    return openedAt === undefined || key.deactivated_at === null || key.deactivated_at < openedAt;
  }

  createAccount(name: string): NewAccount {
    const trimmed = name.trim();
    if (!trimmed) throw new AccountError('An organisation needs a name.');
    // Names are how people tell organisations apart in `org list`; two of one name would be ambiguous.
    const taken = this.db.prepare<[string], { account: string }>(`SELECT account FROM accounts WHERE lower(name) = lower(?)`).get(trimmed);
    if (taken) throw new AccountError(`An organisation named "${trimmed}" already exists (account ${taken.account}).`);
    return this.db.transaction((): NewAccount => {
      const account = newId();
      this.db
        .prepare(`INSERT INTO accounts (account, name, active, created_at) VALUES (?, ?, 1, ?)`)
        .run(account, trimmed, new Date().toISOString());
      return {
        account,
        ingestionKey: this.createKey(account, 'ingestion').key,
        serviceKey: this.createKey(account, 'service').key,
      };
    })();
  }

  createKey(account: string, type: KeyType, name = ''): NewKey {
    if (type !== 'ingestion' && type !== 'service') {
      throw new AccountError(`A key type is "ingestion" or "service", not "${type}".`);
    }
    if (!this.db.prepare(`SELECT 1 FROM accounts WHERE account = ?`).get(account)) {
      throw new AccountError(`No organisation has the account id "${account}".`);
    }
    const key = newSecretKey();
    const id = newId();
    this.insertKey.run(id, account, type, name, hashKey(key), new Date().toISOString());
    return { id, account, type, name, key };
  }

  /** Revokes a key given either its id or the key itself. Returns false when nothing matched. */
  revokeKey(idOrKey: string): boolean {
    const key = this.db
      .prepare<[string, string], { id: string }>(`SELECT id FROM api_keys WHERE (id = ? OR key_hash = ?) AND revoked_at IS NULL`)
      .get(idOrKey, hashKey(idOrKey));
    return key !== undefined && this.revokeById(key.id);
  }

  /** Revokes a key and signs out the viewer sessions it opened, in one transaction. */
  private revokeById(id: string): boolean {
    return this.db.transaction(() => {
      const changed = this.db.prepare(`UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`).run(new Date().toISOString(), id).changes;
      this.db.prepare(`DELETE FROM sessions WHERE key_id = ?`).run(id);
      return changed > 0;
    })();
  }

  listKeys(account: string, type?: KeyType): KeySummary[] {
    return this.db
      .prepare<[string, string | null, string | null], { id: string; name: string; type: KeyType; created_at: string }>(
        `SELECT id, name, type, created_at FROM api_keys
          WHERE account = ? AND revoked_at IS NULL AND (? IS NULL OR type = ?) ORDER BY created_at, id`,
      )
      .all(account, type ?? null, type ?? null)
      .map((row) => ({ id: row.id, name: row.name, type: row.type, created: Date.parse(row.created_at) }));
  }

  getKey(account: string, id: string): KeySummary | undefined {
    return this.listKeys(account).find((key) => key.id === id);
  }

  renameKey(account: string, id: string, name: string): KeySummary | undefined {
    const changed = this.db.prepare(`UPDATE api_keys SET name = ? WHERE account = ? AND id = ? AND revoked_at IS NULL`).run(name, account, id);
    return changed.changes ? this.getKey(account, id) : undefined;
  }

  /** The id of an active key, given the key itself. */
  keyIdFor(key: string): string | undefined {
    return (this.db.prepare(`SELECT id FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL`).get(hashKey(key)) as { id: string } | undefined)?.id;
  }

  /** Revokes one of an account's keys by id. */
  revokeAccountKey(account: string, id: string): boolean {
    const owned = this.db.prepare(`SELECT 1 FROM api_keys WHERE account = ? AND id = ? AND revoked_at IS NULL`).get(account, id);
    return owned !== undefined && this.revokeById(id);
  }

  /** Deactivating signs out every viewer session of the organisation; its keys stop working at once. */
  setActive(account: string, active: boolean): boolean {
    return this.db.transaction(() => {
      const changed = active
        ? this.db.prepare(`UPDATE accounts SET active = 1 WHERE account = ?`).run(account).changes
        : this.db.prepare(`UPDATE accounts SET active = 0, deactivated_at = ? WHERE account = ?`).run(Date.now(), account).changes;
      if (!active) this.db.prepare(`DELETE FROM sessions WHERE account = ?`).run(account);
      return changed > 0;
    })();
  }

  list(): AccountSummary[] {
    return this.db
      .prepare<[], { account: string; name: string; active: number; created_at: string; retention_days: number | null }>(
        `SELECT account, name, active, created_at, retention_days FROM accounts ORDER BY created_at`,
      )
      .all()
      .map((row) => ({ account: row.account, name: row.name, active: row.active === 1, createdAt: row.created_at, retentionDays: row.retention_days }));
  }

  /** Sets how many days an organisation's lines are kept; null returns it to the server's default. */
  setRetention(account: string, days: number | null): boolean {
    if (days !== null && (!Number.isInteger(days) || days < 1 || days > MAX_RETENTION_DAYS)) {
      throw new AccountError(`Retention is a whole number of days from 1 to ${MAX_RETENTION_DAYS}, not "${days}".`);
    }
    return this.db.prepare(`UPDATE accounts SET retention_days = ? WHERE account = ?`).run(days, account).changes > 0;
  }

  /** An organisation's own retention in days, or null when it follows the server's default. */
  retentionDaysOf(account: string): number | null {
    return this.retentionOf.get(account)?.retention_days ?? null;
  }

  /** Organisations whose retention differs from the server's default, with their days. */
  retentionOverrides(): Map<string, number> {
    const rows = this.db
      .prepare<[], { account: string; retention_days: number }>(`SELECT account, retention_days FROM accounts WHERE retention_days IS NOT NULL`)
      .all();
    return new Map(rows.map((row) => [row.account, row.retention_days]));
  }

  count(): number {
    return (this.db.prepare(`SELECT count(*) AS n FROM accounts`).get() as { n: number }).n;
  }
}
