import { Listeners } from '../lib/listeners.js';
import { sql } from 'kysely';
import { type ConfigKysely, onPostgres } from '../repository/open.js';
import { preparedQuery } from '../repository/prepared.js';
import { hashKey, newId, newSecretKey } from '../lib/ids.js';

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
  /** The member who made it over the API, whose role and scope bound it; null for full rights. */
  madeBy: string | null;
}

export interface AccountSummary {
  account: string;
  name: string;
  active: boolean;
  createdAt: string;
  /** Days its lines are kept when set for this organisation; null follows the server's default. */
  retentionDays: number | null;
}

/** The PostgreSQL advisory lock that whoever creates the first organisation holds (copy-to-cluster too). */
export const FIRST_ORGANISATION_LOCK = 'logstead:first-organisation';

/** The longest retention an organisation may have: about ten years. */
export const MAX_RETENTION_DAYS = 3650;

export class AccountError extends Error {}

/** An account id that names no organisation: the one message the CLI, the control socket and the API give for it. */
export class UnknownOrganisation extends AccountError {
  constructor(readonly account: string) {
    super(`No organisation has the account id "${account}".`);
  }
}

/** A key that authenticated a request: whose it is, and its id (so what it opened can be revoked with it). */
export interface ActiveKey {
  account: string;
  keyId: string;
  /** The member whose current role and scope bound it; null for a key of full rights. */
  madeBy: string | null;
}

/**
 * Organisations (accounts) and their API keys. Keys are stored as SHA-256 hashes only; the
 * clear key is returned once, at creation.
 */
export class Accounts {
  /** Asked on every request, so built once (see prepared.ts). */
  private readonly activeKey;
  private readonly liveKey;

  /** Hears of every change to organisations (their keys aside), so what this node caches follows at once. */
  readonly changes = new Listeners<void>();

  constructor(private readonly db: ConfigKysely) {
    this.activeKey = preparedQuery(
      db,
      (keyHash: string, type: string) =>
        db
          .selectFrom('api_keys as k')
          .innerJoin('accounts as a', 'a.account', 'k.account')
          .select(['k.account', 'k.id', 'k.made_by'])
          .where('k.key_hash', '=', keyHash)
          .where('k.type', '=', type as KeyType)
          .where('k.revoked_at', 'is', null)
          .where('a.active', '=', 1),
      2,
    );
    this.liveKey = preparedQuery(
      db,
      (keyId: string) =>
        db
          .selectFrom('api_keys as k')
          .innerJoin('accounts as a', 'a.account', 'k.account')
          .select(['k.account', 'k.made_by', 'a.deactivated_at'])
          .where('k.id', '=', keyId)
          .where('k.revoked_at', 'is', null)
          .where('a.active', '=', 1),
      1,
    );
  }

  /** The account an active key of this type belongs to, or null (unknown, revoked or inactive). */
  async accountForKey(key: string, type: KeyType): Promise<string | null> {
    return (await this.findActiveKey(key, type))?.account ?? null;
  }

  /** The account and id of an active key of this type, or null (unknown, revoked or inactive). */
  async findActiveKey(key: string, type: KeyType): Promise<ActiveKey | null> {
    const [row] = await this.activeKey(hashKey(key), type);
    return row ? { account: row.account, keyId: row.id, madeBy: row.made_by } : null;
  }

  /**
   * Whether a key, by id, may still act (not revoked, and its organisation active), and if so its
   * maker: the member whose role and scope bound it, or null for a key of full rights; undefined
   * when it may not act. Whatever a key opened (sessions, live tails, e-mailed export links) asks
   * this, so revocation reaches it. With `openedAt`, also whether the organisation has not been
   * deactivated since: what a deactivation ended stays ended after the organisation is reactivated.
   */
  async liveKeyMaker(keyId: string, openedAt?: number): Promise<string | null | undefined> {
    const [key] = await this.liveKey(keyId);
    if (key === undefined) return undefined;
    const live = openedAt === undefined || key.deactivated_at === null || key.deactivated_at < openedAt;
    return live ? key.made_by : undefined;
  }

  async createAccount(name: string): Promise<NewAccount> {
    const trimmed = name.trim();
    if (!trimmed) throw new AccountError('An organisation needs a name.');
    const created = await this.db.transaction().execute(async (trx) => {
      // Names are how people tell organisations apart in `org list`; two of one name would be ambiguous.
      const taken = await trx
        .selectFrom('accounts')
        .select('account')
        // Both sides lowered by the database, so they agree on what lower case is (SQLite lowers ASCII only).
        .where(sql`lower(name)`, '=', sql`lower(${trimmed})`)
        .executeTakeFirst();
      if (taken) throw new AccountError(`An organisation named "${trimmed}" already exists (account ${taken.account}).`);
      return insertAccount(trx, trimmed);
    });
    await this.changes.emit();
    return created;
  }

  /**
   * Creates the default organisation unless one exists: several nodes starting at once on empty
   * shared stores create exactly one. A lock serialises them on PostgreSQL; SQLite writes one at a time.
   */
  async createFirstAccount(name: string): Promise<NewAccount | null> {
    const created = await this.db.transaction().execute(async (trx) => {
      if (onPostgres(trx)) await sql`SELECT pg_advisory_xact_lock(hashtextextended(${FIRST_ORGANISATION_LOCK}, 0))`.execute(trx);
      const existing = await trx.selectFrom('accounts').select('account').limit(1).executeTakeFirst();
      return existing ? null : insertAccount(trx, name);
    });
    if (created) await this.changes.emit();
    return created;
  }

  /** Makes a key; `madeBy` names the member whose role and scope bound it (null: full rights, as the CLI's). */
  async createKey(account: string, type: KeyType, name = '', madeBy: string | null = null): Promise<NewKey> {
    if (type !== 'ingestion' && type !== 'service') {
      throw new AccountError(`A key type is "ingestion" or "service", not "${type}".`);
    }
    if (!(await this.db.selectFrom('accounts').select('account').where('account', '=', account).executeTakeFirst())) {
      throw new UnknownOrganisation(account);
    }
    return insertKey(this.db, account, type, name, madeBy);
  }

  /** Revokes a key given either its id or the key itself. Returns false when nothing matched. */
  async revokeKey(idOrKey: string): Promise<boolean> {
    const key = await this.db
      .selectFrom('api_keys')
      .select('id')
      .where((eb) => eb.or([eb('id', '=', idOrKey), eb('key_hash', '=', hashKey(idOrKey))]))
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return key !== undefined && this.revokeById(key.id);
  }

  /** Revokes a key and signs out the viewer sessions it opened, in one transaction. */
  private revokeById(id: string): Promise<boolean> {
    return this.db.transaction().execute((trx) => revokeIn(trx, id));
  }

  async listKeys(account: string, type?: KeyType): Promise<KeySummary[]> {
    let query = this.db.selectFrom('api_keys').select(['id', 'name', 'type', 'created_at', 'made_by']).where('account', '=', account).where('revoked_at', 'is', null);
    if (type !== undefined) query = query.where('type', '=', type);
    const rows = await query.orderBy('created_at').orderBy('id').execute();
    return rows.map((row) => ({ id: row.id, name: row.name, type: row.type, created: Date.parse(row.created_at), madeBy: row.made_by }));
  }

  async getKey(account: string, id: string): Promise<KeySummary | undefined> {
    return (await this.listKeys(account)).find((key) => key.id === id);
  }

  async renameKey(account: string, id: string, name: string): Promise<KeySummary | undefined> {
    const changed = await this.db
      .updateTable('api_keys')
      .set({ name })
      .where('account', '=', account)
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(changed.numUpdatedRows) ? this.getKey(account, id) : undefined;
  }

  /** The id of an active key, given the key itself. */
  async keyIdFor(key: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('api_keys').select('id').where('key_hash', '=', hashKey(key)).where('revoked_at', 'is', null).executeTakeFirst();
    return row?.id;
  }

  /**
   * Revokes one of an account's keys by id: 'revoked', or 'missing' when the account has no such
   * live key. With `presentedKeyId` (the key authorising the request), refuses with 'last' to
   * revoke that key when it is the organisation's last service key. The check and the revocation
   * are one transaction holding the organisation's service keys, so two keys revoking each other
   * at once cannot leave it with none.
   */
  async revokeAccountKey(account: string, id: string, presentedKeyId?: string): Promise<'revoked' | 'missing' | 'last'> {
    return this.db.transaction().execute(async (trx) => {
      let live = trx.selectFrom('api_keys').select(['id', 'type']).where('account', '=', account).where('revoked_at', 'is', null);
      // SQLite writes one transaction at a time; PostgreSQL needs the rows locked.
      if (onPostgres(trx)) live = live.forUpdate();
      const keys = await live.execute();
      if (!keys.some((key) => key.id === id)) return 'missing';
      if (id === presentedKeyId && keys.filter((key) => key.type === 'service').length === 1) return 'last';
      await revokeIn(trx, id);
      return 'revoked';
    });
  }

  /** Deactivating signs out every viewer session of the organisation; its keys stop working at once. */
  async setActive(account: string, active: boolean): Promise<boolean> {
    const changed = await this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('accounts')
        .set(active ? { active: 1 } : { active: 0, deactivated_at: Date.now() })
        .where('account', '=', account)
        .executeTakeFirst();
      if (!active) await trx.deleteFrom('sessions').where('account', '=', account).execute();
      return Number(result.numUpdatedRows) > 0;
    });
    if (changed) await this.changes.emit();
    return changed;
  }

  async list(): Promise<AccountSummary[]> {
    const rows = await this.db
      .selectFrom('accounts')
      .select(['account', 'name', 'active', 'created_at', 'retention_days'])
      .orderBy('created_at')
      .orderBy('account')
      .execute();
    return rows.map((row) => ({ account: row.account, name: row.name, active: row.active === 1, createdAt: row.created_at, retentionDays: row.retention_days }));
  }

  /** Sets how many days an organisation's lines are kept; null returns it to the server's default. */
  async setRetention(account: string, days: number | null): Promise<boolean> {
    if (days !== null && (!Number.isInteger(days) || days < 1 || days > MAX_RETENTION_DAYS)) {
      throw new AccountError(`Retention is a whole number of days from 1 to ${MAX_RETENTION_DAYS}, not "${days}".`);
    }
    const result = await this.db.updateTable('accounts').set({ retention_days: days }).where('account', '=', account).executeTakeFirst();
    const changed = Number(result.numUpdatedRows) > 0;
    if (changed) await this.changes.emit();
    return changed;
  }

  async count(): Promise<number> {
    const row = await this.db.selectFrom('accounts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }
}

/** A new organisation with its first ingestion and service keys. */
async function insertAccount(db: ConfigKysely, name: string): Promise<NewAccount> {
  const account = newId();
  await db.insertInto('accounts').values({ account, name, active: 1, created_at: new Date().toISOString() }).execute();
  return {
    account,
    ingestionKey: (await insertKey(db, account, 'ingestion', '')).key,
    serviceKey: (await insertKey(db, account, 'service', '')).key,
  };
}

/**
 * Revokes the service keys a member made, and ends the sessions those keys opened, inside the
 * transaction that removes the member: a key never outlives the person whose rights bound it.
 */
export async function revokeKeysMadeBy(trx: ConfigKysely, memberId: string): Promise<void> {
  const made = await trx.selectFrom('api_keys').select('id').where('made_by', '=', memberId).where('revoked_at', 'is', null).execute();
  for (const key of made) await revokeIn(trx, key.id);
}

/** Revokes a live key and ends the viewer sessions it opened; says whether it was live. */
async function revokeIn(trx: ConfigKysely, id: string): Promise<boolean> {
  const result = await trx.updateTable('api_keys').set({ revoked_at: new Date().toISOString() }).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
  await trx.deleteFrom('sessions').where('key_id', '=', id).execute();
  return Number(result.numUpdatedRows) > 0;
}

async function insertKey(db: ConfigKysely, account: string, type: KeyType, name: string, madeBy: string | null = null): Promise<NewKey> {
  const key = newSecretKey();
  const id = newId();
  await db.insertInto('api_keys').values({ id, account, type, name, key_hash: hashKey(key), created_at: new Date().toISOString(), made_by: madeBy }).execute();
  return { id, account, type, name, key };
}
