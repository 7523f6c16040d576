import { randomUUID } from 'node:crypto';
import type { ConfigKysely } from '../repository/open.js';
import { onPostgres } from '../repository/open.js';
import { archiveObjectKey } from './object-names.js';

/** A file the archiver must write: one organisation's lines of one hour that arrived in a window. */
export interface PlannedFile {
  hour: number;
  arrivalFrom: number;
  arrivalTo: number;
  lines: number;
}

export interface ClaimedFile {
  id: number;
  account: string;
  hour: number;
  seq: number;
  objectKey: string;
  arrivalFrom: number;
  arrivalTo: number;
  attempts: number;
  token: string;
}

/** Where an organisation's archiving stands: the pass the next one continues from. */
export interface ArchivePosition {
  configuredAt: number;
  passedTo: number;
  eligibleBefore: number;
}

export interface ArchiveFileStatus {
  object: string;
  hour: string;
  status: 'pending' | 'written';
  /** Lines written (written), or counted when planned (pending). */
  lines: number;
  bytes: number | null;
  attempts: number;
  lastError: string | null;
  writtenAt: number | null;
}

/**
 * The archive record in the configuration database: every file planned, then claimed by one node,
 * written, and recorded with its lines and bytes. A file's lines are fixed when it is planned (its
 * hour and arrival window), so whichever node writes it, however often, writes the same object.
 */
export class ArchiveFiles {
  constructor(
    private readonly db: ConfigKysely,
    private readonly node: number,
  ) {}

  async position(account: string): Promise<ArchivePosition | undefined> {
    const row = await this.db.selectFrom('archive_configs').select(['configured_at', 'passed_to', 'eligible_before']).where('account', '=', account).executeTakeFirst();
    return row && { configuredAt: Number(row.configured_at), passedTo: Number(row.passed_to), eligibleBefore: Number(row.eligible_before) };
  }

  /**
   * Records a pass: its files, and the position the next pass starts from, in one transaction.
   * Only if the position is still `from` (another node's pass, or a reconfiguration, did not move
   * it meanwhile): false otherwise, and nothing is recorded.
   */
  async recordPass(account: string, from: ArchivePosition, to: { passedTo: number; eligibleBefore: number }, files: PlannedFile[], now: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const moved = await trx
        .updateTable('archive_configs')
        .set({ passed_to: to.passedTo, eligible_before: to.eligibleBefore })
        .where('account', '=', account)
        .where('configured_at', '=', from.configuredAt)
        .where('passed_to', '=', from.passedTo)
        .where('eligible_before', '=', from.eligibleBefore)
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) === 0) return false;
      for (const file of files) {
        const last = await trx
          .selectFrom('archive_files')
          .select((eb) => eb.fn.max<number | string | null>('seq').as('seq'))
          .where('account', '=', account)
          .where('hour', '=', file.hour)
          .executeTakeFirst();
        const seq = last?.seq === null || last?.seq === undefined ? 0 : Number(last.seq) + 1;
        await trx
          .insertInto('archive_files')
          .values({
            account,
            hour: file.hour,
            seq,
            object_key: archiveObjectKey(account, file.hour, seq),
            arrival_from: file.arrivalFrom,
            arrival_to: file.arrivalTo,
            planned_lines: file.lines,
            attempts: 0,
            status: 'pending',
            next_attempt_at: now,
            created_at: now,
          })
          .execute();
      }
      return true;
    });
  }

  /** Claims files due for writing, for `leaseMs`; a dead node's claims run out and pass to another. */
  async claimDue(now: number, limit: number, leaseMs: number): Promise<ClaimedFile[]> {
    return this.db.transaction().execute(async (trx) => {
      let due = trx
        .selectFrom('archive_files')
        .select(['id', 'account', 'hour', 'seq', 'object_key', 'arrival_from', 'arrival_to', 'attempts'])
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
        .updateTable('archive_files')
        .set({ claimed_until: now + leaseMs, claimed_by: this.node, claim_token: token })
        .where(
          'id',
          'in',
          rows.map((row) => row.id),
        )
        .execute();
      return rows.map((row) => ({
        id: Number(row.id),
        account: row.account,
        hour: Number(row.hour),
        seq: Number(row.seq),
        objectKey: row.object_key,
        arrivalFrom: Number(row.arrival_from),
        arrivalTo: Number(row.arrival_to),
        attempts: Number(row.attempts),
        token,
      }));
    });
  }

  async extendClaims(tokens: string[], until: number): Promise<void> {
    if (tokens.length === 0) return;
    await this.db.updateTable('archive_files').set({ claimed_until: until }).where('claim_token', 'in', [...new Set(tokens)]).where('status', '=', 'pending').execute();
  }

  /** Records a file written, if this node's claim still holds it (false: another node took it over). */
  async written(file: ClaimedFile, lines: number, bytes: number, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('archive_files')
      .set({ status: 'written', lines, bytes, written_at: now, attempts: file.attempts + 1, last_error: null, claimed_until: null, claim_token: null })
      .where('id', '=', file.id)
      .where('claim_token', '=', file.token)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async failed(file: ClaimedFile, error: string, retryAt: number): Promise<void> {
    await this.db
      .updateTable('archive_files')
      .set({ attempts: file.attempts + 1, last_error: error.slice(0, 2000), next_attempt_at: retryAt, claimed_until: null, claim_token: null })
      .where('id', '=', file.id)
      .where('claim_token', '=', file.token)
      .execute();
  }

  /** The newest `limit` hours' files of an organisation, newest hour first. */
  async status(account: string, limit: number): Promise<ArchiveFileStatus[]> {
    const rows = await this.db
      .selectFrom('archive_files')
      .selectAll()
      .where('account', '=', account)
      .orderBy('hour', 'desc')
      .orderBy('seq', 'asc')
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      object: row.object_key,
      hour: new Date(Number(row.hour)).toISOString(),
      status: row.status,
      lines: Number(row.status === 'written' ? row.lines : row.planned_lines),
      bytes: row.bytes === null ? null : Number(row.bytes),
      attempts: Number(row.attempts),
      lastError: row.last_error,
      writtenAt: row.written_at === null ? null : Number(row.written_at),
    }));
  }

  /** The oldest hour (Unix ms) with a file not yet written, per organisation: what retention must keep. */
  async oldestPendingHours(): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('archive_files')
      .select(['account', (eb) => eb.fn.min<number | string>('hour').as('hour')])
      .where('status', '=', 'pending')
      .groupBy('account')
      .execute();
    return new Map(rows.map((row) => [row.account, Number(row.hour)]));
  }

  /**
   * Per organisation that archives, the time its lines must be kept from: its oldest hour with a
   * file not yet written, or the first hour not yet planned, whichever is older.
   */
  async unarchivedFrom(): Promise<Map<string, number>> {
    const configured = await this.db.selectFrom('archive_configs').select(['account', 'eligible_before']).execute();
    const pending = await this.oldestPendingHours();
    return new Map(configured.map((row) => [row.account, Math.min(Number(row.eligible_before), pending.get(row.account) ?? Infinity)]));
  }

  /** Pending files and the oldest one's creation, for the lag metric. */
  async pendingSummary(): Promise<{ files: number; oldestCreatedAt: number | null }> {
    const row = await this.db
      .selectFrom('archive_files')
      .select([(eb) => eb.fn.countAll<number | string>().as('files'), (eb) => eb.fn.min<number | string | null>('created_at').as('oldest')])
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return { files: Number(row?.files ?? 0), oldestCreatedAt: row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest) };
  }
}
