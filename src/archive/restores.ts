import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { AccessScope } from '../query/access-scope.js';
import type { ConfigKysely } from '../repository/open.js';
import type { LogStore } from '../store/log-store.js';
import { EncodedRows } from '../store/row-encoding.js';
import type { ArchiveSearch } from './archive-search.js';

/** Most lines one restore loads; a wider one is refused with the count, to be split. */
export const MAX_RESTORE_LINES = 1_000_000;
const DAY_MS = 86_400_000;
const INSERT_CHUNK = 10_000;

export interface RestoreStatus {
  id: string;
  status: 'running' | 'done' | 'failed';
  from: number;
  to: number;
  query: string;
  /** Until when the restored lines are kept (Unix ms). */
  keptUntil: number;
  /** Archived lines that matched. */
  linesFound: number;
  /** Of those, the ones loaded: lines still stored are not loaded again. */
  linesRestored: number;
  error: string | null;
  createdAt: number;
  finishedAt: number | null;
}

/**
 * Restores (POST /v1/archive/restore): matching archived lines loaded back into the store, marked
 * as restored and kept for a number of days although older than retention, so the viewer, the
 * histogram and context work on them. A line still stored (same id in the same range) is not
 * loaded again, so a restore repeated, or over lines retention has not dropped, adds nothing
 * twice. The archiver never writes them again: their ids say they arrived long before.
 */
export class Restores {
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly db: ConfigKysely,
    private readonly search: ArchiveSearch,
    private readonly store: LogStore,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Starts a restore in the background and answers its id at once. */
  async start(account: string, request: { fromMs: number; toMs: number; query: string; days: number; scope: AccessScope }): Promise<RestoreStatus> {
    const id = randomUUID();
    const now = Date.now();
    await this.db
      .insertInto('archive_restores')
      .values({ id, account, from_ms: request.fromMs, to_ms: request.toMs, query: request.query, keep_until: now + request.days * DAY_MS, status: 'running', lines_found: 0, lines_restored: 0, created_at: now })
      .execute();
    const work = this.run(id, account, request, now + request.days * DAY_MS).finally(() => this.running.delete(work));
    this.running.add(work);
    return (await this.status(account, id))!;
  }

  private async run(id: string, account: string, request: { fromMs: number; toMs: number; query: string; scope: AccessScope }, keepUntil: number): Promise<void> {
    try {
      const lines = await this.search.read(account, { fromMs: request.fromMs, toMs: request.toMs, query: request.query, scope: request.scope }, { prefer: 'head', limit: MAX_RESTORE_LINES + 1, chronological: true });
      if (lines.length > MAX_RESTORE_LINES) throw new Error(`more than ${MAX_RESTORE_LINES} lines match; restore a shorter range`);
      await this.db.updateTable('archive_restores').set({ lines_found: lines.length }).where('id', '=', id).execute();
      let restored = 0;
      for (let at = 0; at < lines.length; at += INSERT_CHUNK) {
        const chunk = lines.slice(at, at + INSERT_CHUNK);
        const stored = await this.store.storedIds(account, request.fromMs, request.toMs, chunk.map((line) => line.id));
        const missing = chunk.filter((line) => !stored.has(line.id));
        if (missing.length > 0) {
          const encoded = new EncodedRows();
          for (const line of missing) encoded.add(line);
          await this.store.insertRestored(encoded.bytesWritten(), account, missing.map((line) => line.id), keepUntil);
        }
        restored += missing.length;
        await this.db.updateTable('archive_restores').set({ lines_restored: restored }).where('id', '=', id).execute();
      }
      await this.db.updateTable('archive_restores').set({ status: 'done', finished_at: Date.now() }).where('id', '=', id).execute();
    } catch (error) {
      this.log.warn({ err: error, account, restore: id }, 'a restore from the archive failed');
      await this.db
        .updateTable('archive_restores')
        .set({ status: 'failed', error: (error instanceof Error ? error.message : String(error)).split('\n')[0].slice(0, 1000), finished_at: Date.now() })
        .where('id', '=', id)
        .execute()
        .catch(() => {});
    }
  }

  async status(account: string, id: string): Promise<RestoreStatus | undefined> {
    const row = await this.db.selectFrom('archive_restores').selectAll().where('id', '=', id).where('account', '=', account).executeTakeFirst();
    if (!row) return undefined;
    return {
      id: row.id,
      status: row.status,
      from: Number(row.from_ms),
      to: Number(row.to_ms),
      query: row.query,
      keptUntil: Number(row.keep_until),
      linesFound: Number(row.lines_found),
      linesRestored: Number(row.lines_restored),
      error: row.error,
      createdAt: Number(row.created_at),
      finishedAt: row.finished_at === null ? null : Number(row.finished_at),
    };
  }

  /** Waits for the restores under way (shutdown). */
  async stop(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }
}
