import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { AccessScope } from '../query/access-scope.js';
import type { ConfigKysely } from '../repository/open.js';
import type { ConfigTables } from '../repository/tables.js';
import type { LinePosition, LogStore } from '../store/log-store.js';
import { EncodedRows } from '../store/row-encoding.js';
import type { RestoreStatus } from '../wire/types.js';
import type { ArchiveSearch } from './archive-search.js';
import { HOUR_MS } from './object-names.js';

const DAY_MS = 86_400_000;
/** How often a node says it still runs its restores, and looks for restores whose node went quiet. */
export const RESTORE_HEARTBEAT_MS = 10_000;
/** A running restore whose node has not said so for this long is taken over by another node. */
export const RESTORE_STALE_MS = 30_000;

export type { RestoreStatus };

/** The menus a restore keeps to beside its query, as export's parameters: any of each list (an empty or absent list allows all). */
export interface RestoreFilters {
  hosts?: string[];
  apps?: string[];
  levels?: string[];
  tags?: string[];
}

export interface RestoreRequest {
  fromMs: number;
  toMs: number;
  query: string;
  filters: RestoreFilters;
  days: number;
  scope: AccessScope;
}

export interface RestoreOptions {
  /** LOGSTEAD_RESTORE_STEP_LINES: most lines one step reads and loads. */
  stepLines: number;
  heartbeatMs?: number;
  staleMs?: number;
}

const filtersOf = (json: string | null): RestoreFilters => (json === null ? {} : (JSON.parse(json) as RestoreFilters));

/** A restore's menus as its status reports them: every list, empty for any. */
const menusOf = (filters: RestoreFilters) => ({ hosts: filters.hosts ?? [], apps: filters.apps ?? [], levels: filters.levels ?? [], tags: filters.tags ?? [] });

/** What a cancel found: the restore as it now is, or that it had already finished, or nothing. */
export type CancelOutcome = { cancelled: RestoreStatus } | { finished: RestoreStatus } | undefined;

/** What a step reads of a restore's row: the table's own columns (repository/tables.ts). */
const ROW_COLUMNS = ['id', 'account', 'from_ms', 'to_ms', 'query', 'filters_json', 'keep_until', 'status', 'scope_json', 'claimed_by', 'position_ts', 'position_id'] as const;
type Row = Pick<ConfigTables['archive_restores'], (typeof ROW_COLUMNS)[number]>;

const floorHour = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;

/**
 * Restores (POST /v1/archive/restore): matching archived lines loaded back into the store, marked
 * as restored and kept for a number of days although older than retention, so the viewer, the
 * histogram and context work on them. A line still stored (same id in the same range) is not
 * loaded again, so a restore repeated, taken over, or over lines retention has not dropped adds
 * nothing twice. The archiver never writes them again: their ids say they arrived long before.
 *
 * A restore works in steps: at most `stepLines` lines of one archived hour, after the last line
 * the previous step handled. After each step its row records how far it came, so memory holds one
 * step, and whichever node runs it next carries on from there. The node running a restore says so
 * on its row every 10 s; any node's loop takes over a running restore whose node has been quiet
 * for 30 s, by a conditional UPDATE that only one node can win. Between steps the runner reads the
 * row: a cancel (on any node) or a takeover stops it; lines already loaded stay.
 */
export class Restores {
  /** This instance's name on the rows it runs: a restarted node is a new one. */
  private readonly node = randomUUID();
  private readonly running = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  private readonly heartbeatMs: number;
  private readonly staleMs: number;

  constructor(
    private readonly db: ConfigKysely,
    private readonly search: ArchiveSearch,
    private readonly store: LogStore,
    private readonly log: FastifyBaseLogger,
    private readonly options: RestoreOptions,
  ) {
    this.heartbeatMs = options.heartbeatMs ?? RESTORE_HEARTBEAT_MS;
    this.staleMs = options.staleMs ?? RESTORE_STALE_MS;
  }

  /** The loop: heartbeats for the restores this node runs, and takeovers of quiet nodes' ones. */
  start(): void {
    this.stopping = false;
    const tick = () => {
      this.heartbeat()
        .then(() => this.takeOver())
        .catch((error) => this.log.warn({ err: error }, 'the restore loop failed; it tries again'));
    };
    this.timer = setInterval(tick, this.heartbeatMs);
    this.timer.unref();
    tick();
  }

  /** Records a new restore, run by this node in the background, and answers it at once. */
  async begin(account: string, request: RestoreRequest): Promise<RestoreStatus> {
    const id = randomUUID();
    const now = Date.now();
    await this.db
      .insertInto('archive_restores')
      .values({
        id,
        account,
        from_ms: request.fromMs,
        to_ms: request.toMs,
        query: request.query,
        keep_until: now + request.days * DAY_MS,
        status: 'running',
        lines_found: 0,
        lines_restored: 0,
        created_at: now,
        scope_json: JSON.stringify(request.scope),
        filters_json: Object.values(request.filters).some((list) => list?.length) ? JSON.stringify(request.filters) : null,
        claimed_by: this.node,
        heartbeat_at: now,
        position_ts: null,
        position_id: null,
      })
      .execute();
    this.launch(id);
    return (await this.status(account, id))!;
  }

  /** Marks a running restore cancelled; the node running it stops at its next step. */
  async cancel(account: string, id: string): Promise<CancelOutcome> {
    const result = await this.db
      .updateTable('archive_restores')
      .set({ status: 'cancelled', finished_at: Date.now() })
      .where('id', '=', id)
      .where('account', '=', account)
      .where('status', '=', 'running')
      .executeTakeFirst();
    const found = await this.status(account, id);
    if (!found) return undefined;
    return Number(result.numUpdatedRows) === 1 ? { cancelled: found } : { finished: found };
  }

  /** Claims the running restores whose node has been quiet too long, and carries them on here. */
  async takeOver(now = Date.now()): Promise<string[]> {
    if (this.stopping) return [];
    const quietSince = now - this.staleMs;
    const candidates = await this.db
      .selectFrom('archive_restores')
      .select('id')
      .where('status', '=', 'running')
      .where('heartbeat_at', '<', quietSince)
      .limit(20)
      .execute();
    const taken: string[] = [];
    for (const { id } of candidates) {
      // Only one node's UPDATE still finds the heartbeat old: the others change nothing.
      const claimed = await this.db
        .updateTable('archive_restores')
        .set({ claimed_by: this.node, heartbeat_at: now })
        .where('id', '=', id)
        .where('status', '=', 'running')
        .where('heartbeat_at', '<', quietSince)
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) continue;
      this.log.info({ restore: id }, 'took over a restore whose node went quiet');
      taken.push(id);
      this.launch(id);
    }
    return taken;
  }

  /** Says, on the rows of the restores this node runs, that it still runs them. */
  private async heartbeat(): Promise<void> {
    const ids = [...this.running.keys()];
    if (ids.length === 0) return;
    await this.db
      .updateTable('archive_restores')
      .set({ heartbeat_at: Date.now() })
      .where('id', 'in', ids)
      .where('claimed_by', '=', this.node)
      .where('status', '=', 'running')
      .execute();
  }

  private launch(id: string): void {
    if (this.running.has(id)) return;
    const work = this.run(id).finally(() => this.running.delete(id));
    this.running.set(id, work);
  }

  /** The row, while this node still runs it (not cancelled, finished or taken over). */
  private async mine(id: string): Promise<Row | undefined> {
    const row = await this.db
      .selectFrom('archive_restores')
      .select(ROW_COLUMNS)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && row.status === 'running' && row.claimed_by === this.node ? row : undefined;
  }

  /** Marks the restore as alive at this node, if it is still this node's to run. */
  private async renew(id: string): Promise<boolean> {
    const renewed = await this.db
      .updateTable('archive_restores')
      .set({ heartbeat_at: Date.now() })
      .where('id', '=', id)
      .where('claimed_by', '=', this.node)
      .where('status', '=', 'running')
      .executeTakeFirst();
    return Number(renewed.numUpdatedRows) === 1;
  }

  private async run(id: string): Promise<void> {
    try {
      for (;;) {
        if (this.stopping) return; // shutting down: the row stays running, and another node carries it on
        const row = await this.mine(id);
        if (!row) return;
        if ((await this.step(row)) === 'more') continue;
        await this.db
          .updateTable('archive_restores')
          .set({ status: 'done', finished_at: Date.now() })
          .where('id', '=', id)
          .where('claimed_by', '=', this.node)
          .where('status', '=', 'running')
          .execute();
        return;
      }
    } catch (error) {
      this.log.warn({ err: error, restore: id }, 'a restore from the archive failed');
      await this.db
        .updateTable('archive_restores')
        .set({ status: 'failed', error: (error instanceof Error ? error.message : String(error)).split('\n')[0].slice(0, 1000), finished_at: Date.now() })
        .where('id', '=', id)
        .where('claimed_by', '=', this.node)
        .where('status', '=', 'running')
        .execute()
        .catch(() => {});
    }
  }

  /**
   * One step: the next archived hour from the position, at most `stepLines` matching lines after
   * it; the ones not stored are loaded, and the row moves on. 'stop' when the row is no longer
   * this node's to run.
   */
  private async step(row: Row): Promise<'more' | 'finished' | 'stop'> {
    const fromMs = Number(row.from_ms);
    const toMs = Number(row.to_ms);
    const position: LinePosition | undefined = row.position_ts === null ? undefined : { ts: Number(row.position_ts), id: row.position_id ?? '0' };
    const hour = await this.search.nextHour(row.account, floorHour(position?.ts ?? fromMs), toMs);
    if (hour === undefined) return 'finished';
    if (!(await this.search.configured(row.account))) throw new Error('archiving is no longer configured for this organisation');
    const window = { fromMs: Math.max(fromMs, hour), toMs: Math.min(toMs, hour + HOUR_MS - 1) };
    const scope = row.scope_json === null ? null : (JSON.parse(row.scope_json) as AccessScope);
    const lines = await this.search.read(
      row.account,
      { ...window, query: row.query, ...filtersOf(row.filters_json), scope },
      { prefer: 'head', limit: this.options.stepLines, after: position && position.ts >= hour ? position : undefined, chronological: true },
    );
    const stored = lines.length === 0 ? new Set<string>() : await this.store.storedIds(row.account, window.fromMs, window.toMs, lines.map((line) => line.id));
    const missing = lines.filter((line) => !stored.has(line.id));
    // A cancel or a takeover that came while this step read is honoured before anything is
    // loaded; and renewing the heartbeat in the same UPDATE fences the load: no other node may
    // take the restore over for the next RESTORE_STALE_MS, far longer than one step's insert.
    if (!(await this.renew(row.id))) return 'stop';
    if (missing.length > 0) {
      const encoded = new EncodedRows();
      for (const line of missing) encoded.add(line);
      await this.store.insertRestored(encoded.bytesWritten(), row.account, missing.map((line) => line.id), Number(row.keep_until));
    }
    // A full step may leave lines of this hour; a short one finished it, and the next step starts at the next hour.
    const last = lines[lines.length - 1];
    const next = lines.length >= this.options.stepLines ? { ts: last.ts, id: last.id } : { ts: hour + HOUR_MS, id: '0' };
    // Counted even if a cancel came meanwhile: the loaded lines are there, and the count says so.
    await this.db
      .updateTable('archive_restores')
      .set((eb) => ({
        position_ts: next.ts,
        position_id: next.id,
        lines_found: eb('lines_found', '+', lines.length),
        lines_restored: eb('lines_restored', '+', missing.length),
        heartbeat_at: Date.now(),
      }))
      .where('id', '=', row.id)
      .where('claimed_by', '=', this.node)
      .execute();
    return next.ts > toMs ? 'finished' : 'more';
  }

  /** The access scope a restore was started with (it finds and counts only lines inside it); undefined when there is no such restore. */
  async scopeOf(account: string, id: string): Promise<AccessScope | undefined> {
    const row = await this.db.selectFrom('archive_restores').select('scope_json').where('id', '=', id).where('account', '=', account).executeTakeFirst();
    if (!row) return undefined;
    return row.scope_json === null ? null : (JSON.parse(row.scope_json) as AccessScope);
  }

  async status(account: string, id: string): Promise<RestoreStatus | undefined> {
    const row = await this.db.selectFrom('archive_restores').selectAll().where('id', '=', id).where('account', '=', account).executeTakeFirst();
    if (!row) return undefined;
    const from = Number(row.from_ms);
    const to = Number(row.to_ms);
    const reached = row.position_ts === null ? from : Number(row.position_ts);
    return {
      id: row.id,
      status: row.status,
      from,
      to,
      query: row.query,
      ...menusOf(filtersOf(row.filters_json)),
      keptUntil: Number(row.keep_until),
      linesFound: Number(row.lines_found),
      linesRestored: Number(row.lines_restored),
      progress: row.status === 'done' ? 1 : to > from ? Math.min(1, Math.max(0, (reached - from) / (to - from))) : 0,
      error: row.error,
      createdAt: Number(row.created_at),
      finishedAt: row.finished_at === null ? null : Number(row.finished_at),
    };
  }

  /**
   * Stops the loop, and lets each restore this node runs finish its current step. They stay
   * running on their rows: another node, or this one started again, carries them on.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    await Promise.allSettled([...this.running.values()]);
  }
}
