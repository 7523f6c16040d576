import { type ChartQuery, type ChartRows, chartSeries } from './chart-series.js';
import { type FieldStatsOptions, type StoredFieldStats, fieldStats } from './field-stats.js';
import { ARCHIVE_RECORD_COLUMNS, ARCHIVE_RECORD_SETTINGS } from './archive-record-sql.js';
import type { FacetName, Facets } from '../wire/types.js';
import type { InsertPayload, SqlExecutor, SqlParams } from './executor.js';
import { INSERT_COLUMNS } from './row-encoding.js';
import { META_FIELD_PATHS } from './meta-paths-sql.js';
import { type MaskedFit, type PatternGroup, type PatternGroupOptions, type Selection, anyMaskedMatch, linesAt, patternGroups } from './line-patterns.js';
import type { SqlCondition, StoredLine } from './types.js';
import { migrateLogStore } from './migrations.js';
import { type LogTables, logTables, sqlString } from './tables.js';

/** What to read. Every read is scoped to one account and a closed time range. */
export interface LineFilter {
  account: string;
  fromMs: number;
  toMs: number;
  hosts?: string[];
  apps?: string[];
  levels?: string[];
  tags?: string[];
  /** A compiled search query (query/compile.ts builds it). */
  condition?: SqlCondition;
}

/** One alert window's matching lines (LogStore.alertWindows). */
export interface AlertWindowCount {
  windowStart: number;
  count: number;
  /** Unix ms of the window's newest line. */
  lastMs: number;
  /** Unix ms of the window's nth line, when asked for and the window has that many. */
  nthMs?: number;
}

export interface LinePosition {
  ts: number;
  id: string;
}

export interface ReadOptions {
  /** 'head' reads from the start of the range, 'tail' from its end. */
  prefer: 'head' | 'tail';
  limit: number;
  /** Continue strictly after (head) or before (tail) this line. */
  after?: LinePosition;
  /** Deliver rows in time order even when reading from the tail. */
  chronological: boolean;
}

/** The fractions of a range, newest first, that readTailInWindows reads in turn. */
const TAIL_WINDOWS = [1 / 64, 1 / 8, 1];
const TAIL_CHUNK = 1000;

// ts_ms, not ts: an alias named ts would shadow the column in WHERE and defeat the primary key.
const columns = `account, toUnixTimestamp64Milli(ts) AS ts_ms, id, batch_id, host, app, level, env, file, ip, mac,
  tags, line, logtype, fields, meta, meta_indexed, meta_note, extra, size`;

/** Lines and their bytes (the sum of `size`: each line's text in UTF-8), for usage reports. */
export interface Volume {
  lines: number;
  bytes: number;
}

/** An organisation's stored volume over a time range (LogStore.usage). */
export interface StoredUsage {
  totals: Volume & {
    /**
     * Lines that carried a meta object kept as text only, not indexed as fields, because a field
     * had another type than the organisation's first (type conflict) or would have passed the
     * daily cap on new fields. Meta that was not an object, or over the size limit, is not counted.
     */
    metaUnindexedLines: number;
  };
  /** Days with lines, oldest first; a day is a UTC date, e.g. 2026-11-24. */
  days: Array<Volume & { day: string }>;
  /** The most voluminous apps and hosts, by bytes then lines, at most `top` of each. */
  apps: Array<Volume & { name: string }>;
  hosts: Array<Volume & { name: string }>;
}

/** One day of stored lines: the unit retention drops. */
export interface StoredDay {
  /** The engine's partition id, e.g. 20261124. */
  id: string;
  /** Unix ms of the newest line in it. */
  newestMs: number;
  lines: number;
  bytesOnDisk: number;
}

export interface LogStoreOptions {
  /**
   * The oldest time an organisation's lines may be read from (its retention). Lines older than this
   * are never returned, even before they are removed from disk.
   */
  retainedFrom?: (account: string) => number;
  /** LOGSTEAD_CLICKHOUSE_CLUSTER: the tables live on this cluster of a ClickHouse server. */
  cluster?: string;
}

/** Owns all log SQL. Nothing outside this module writes SQL for logs. */
export class LogStore {
  private constructor(
    private readonly executor: SqlExecutor,
    private readonly retainedFrom: (account: string) => number,
    private readonly tables: LogTables,
  ) {}

  /** Opens the store, first applying its schema migrations. */
  static async open(executor: SqlExecutor, options: LogStoreOptions = {}): Promise<LogStore> {
    const tables = logTables(options.cluster);
    await migrateLogStore(executor, tables);
    return new LogStore(executor, options.retainedFrom ?? (() => 0), tables);
  }

  /** Writes rows encoded by row-encoding.ts (encodeRows) in one insert. */
  async insert(encodedRows: InsertPayload): Promise<void> {
    await this.executor.insertTabSeparated(this.tables.reads, INSERT_COLUMNS, encodedRows);
  }

  /** The WHERE clause and parameters selecting a filter's lines. */
  private selection(filter: LineFilter): { where: string[]; params: SqlParams } {
    const retainedFromMs = this.retainedFrom(filter.account);
    const params: SqlParams = { account: filter.account, fromMs: filter.fromMs, toMs: filter.toMs, retainedFromMs };
    const where = [
      'account = {account:String}',
      'ts >= fromUnixTimestamp64Milli({fromMs:Int64})',
      // Lines restored from the archive are read past retention until their time runs out; the
      // extra condition only where the range reaches back past retention.
      filter.fromMs < retainedFromMs
        ? '(ts >= fromUnixTimestamp64Milli({retainedFromMs:Int64}) OR restored_until > now64(3))'
        : 'ts >= fromUnixTimestamp64Milli({retainedFromMs:Int64})',
      'ts <= fromUnixTimestamp64Milli({toMs:Int64})',
    ];
    const inList = (column: string, name: string, values?: string[]) => {
      if (!values?.length) return;
      params[name] = values;
      where.push(`${column} IN {${name}:Array(String)}`);
    };
    inList('host', 'hosts', filter.hosts);
    inList('app', 'apps', filter.apps);
    inList('level', 'levels', filter.levels);
    if (filter.tags?.length) {
      params.tags = filter.tags;
      where.push('hasAny(tags, {tags:Array(String)})');
    }
    if (filter.condition) {
      // Every public method expands first; a condition that reached here unexpanded would still be
      // right, only slower, so this catches the method that forgot.
      if (filter.condition.prefixes) throw new Error('LogStore: a condition with word prefixes must be expanded (this.expanded) before its SQL runs');
      Object.assign(params, filter.condition.params);
      where.push(filter.condition.sql);
    }
    return { where, params };
  }

  /**
   * A read that counts or groups a range of an organisation's lines: the timeline, the menus, usage,
   * the scope counts, the index-rate monitor. It runs apart from the inserts (SqlExecutor.rows'
   * `apart`), as the fields, patterns and graphs do: on the embedded engine's main connection it held
   * every insert, and with it every ingest request's answer, until it ended. Over 10 M lines a
   * one-line request took 161-260 ms beside the timeline or the menus, and 27-33 ms with them apart.
   */
  private scan<T>(sql: string, params: SqlParams): Promise<T[]> {
    return this.executor.rows<T>(sql, params, { apart: true });
  }

  /**
   * The filter with its condition's word prefixes looked up in the text index's dictionary first,
   * all in one query of a few ms, so the search binds their tokens instead of a subquery
   * (SqlCondition.prefixes). A line stored between the two queries with a token new to the
   * dictionary is missed by a search for its word, and returned by one that excludes the word.
   */
  private async expanded<F extends { condition?: SqlCondition }>(filter: F): Promise<F> {
    const prefixes = filter.condition?.prefixes;
    if (!prefixes) return filter;
    const params: SqlParams = {};
    const lookups = prefixes.words.map((word, at) => {
      params[`prefix${at}`] = word;
      return `SELECT ${at} AS word, token FROM (${prefixes.tokensSql(`{prefix${at}:String}`)})`;
    });
    const tokens = new Map<string, string[]>(prefixes.words.map((word) => [word, []]));
    for (const row of await this.executor.rows<{ word: string | number; token: string }>(lookups.join(' UNION ALL '), params)) {
      tokens.get(prefixes.words[Number(row.word)])!.push(row.token);
    }
    return { ...filter, condition: prefixes.expanded(tokens) };
  }

  /** Reads matching lines in chunks, so export can stream before the query ends. */
  async *read(query: LineFilter, options: ReadOptions): AsyncIterable<StoredLine[]> {
    const filter = await this.expanded(query);
    if (options.prefer === 'tail' && filter.condition?.readsLines) yield* this.readTailInWindows(filter, options);
    else yield* this.readOnce(filter, options);
  }

  /**
   * The newest lines for a condition that must read each candidate line (a phrase, a field
   * value): first in the newest 1/64 of the range, then the newest 1/8, then the rest, stopping
   * once the limit is reached. One query over the whole range makes the engine start reading
   * every part at once, so the newest 100 hits of a frequent phrase over 10 million lines cost
   * 90 ms instead of 25 (docs/performance.md). Windows are disjoint, so no line comes twice.
   */
  private async *readTailInWindows(filter: LineFilter, options: ReadOptions): AsyncIterable<StoredLine[]> {
    const newestFirst: StoredLine[] = [];
    const span = filter.toMs - filter.fromMs + 1;
    let upper = filter.toMs;
    for (const fraction of TAIL_WINDOWS) {
      const lower = Math.max(filter.fromMs, filter.toMs - Math.ceil(span * fraction) + 1);
      if (lower > upper) continue;
      const window = { ...filter, fromMs: lower, toMs: upper };
      for await (const rows of this.readOnce(window, { ...options, limit: options.limit - newestFirst.length, chronological: false })) {
        newestFirst.push(...rows);
      }
      if (newestFirst.length >= options.limit || lower === filter.fromMs) break;
      upper = lower - 1;
    }
    if (options.chronological) newestFirst.reverse();
    for (let at = 0; at < newestFirst.length; at += TAIL_CHUNK) yield newestFirst.slice(at, at + TAIL_CHUNK);
  }

  private readOnce(filter: LineFilter, options: ReadOptions): AsyncIterable<StoredLine[]> {
    const { where, params } = this.selection(filter);
    params.limit = options.limit;
    const forward = options.prefer === 'head';
    if (options.after) {
      params.afterTs = options.after.ts;
      params.afterId = options.after.id;
      where.push(
        `(ts, id) ${forward ? '>' : '<'} (fromUnixTimestamp64Milli({afterTs:Int64}), {afterId:UInt64})`,
      );
    }
    const direction = forward ? 'ASC' : 'DESC';
    let sql = `SELECT ${columns} FROM ${this.tables.reads} WHERE ${where.join(' AND ')}
      ORDER BY ts ${direction}, id ${direction} LIMIT {limit:UInt32}`;
    if (!forward && options.chronological) sql = `SELECT * FROM (${sql}) ORDER BY ts_ms ASC, id ASC`;
    // Ids are 64-bit in the store; quoted, they reach JavaScript exactly. Top-k dynamic filtering
    // turns the text index's direct read back into tokenizing every candidate row, which made
    // word searches for the newest lines 2-3 times slower (docs/performance.md).
    sql += ' SETTINGS output_format_json_quote_64bit_integers = 1, use_top_k_dynamic_filtering = 0';
    return withMillis(this.executor.stream<StoredLine & { ts_ms: string }>(sql, params));
  }

  /**
   * Matching lines counted per level in equal buckets from filter.fromMs. Returns only non-empty
   * (bucket, level) pairs; bucket is the bucket's index.
   */
  async histogram(filter: LineFilter, bucketMs: number): Promise<Array<{ bucket: number; level: string; count: number }>> {
    const { where, params } = this.selection(await this.expanded(filter));
    params.bucketMs = bucketMs;
    const rows = await this.scan<{ bucket: string; level: string; count: string }>(
      `SELECT intDiv(toUnixTimestamp64Milli(ts) - {fromMs:Int64}, {bucketMs:Int64}) AS bucket, level, count() AS count
         FROM ${this.tables.reads} WHERE ${where.join(' AND ')}
        GROUP BY bucket, level ORDER BY bucket`,
      params,
    );
    return rows.map((row) => ({ bucket: Number(row.bucket), level: row.level, count: Number(row.count) }));
  }

  /** A graph's measure per time bucket, split by a breakdown's top values (chart-series.ts). */
  async chartSeries(filter: LineFilter, query: ChartQuery): Promise<ChartRows> {
    return chartSeries(this.executor, this.tables.reads, this.selection(await this.expanded(filter)), query);
  }

  /**
   * The most frequent hosts, apps, levels and tags among a filter's lines, with their counts. Each
   * menu cross-filters as Kibana's do: its counts take the query, the time range and the other
   * menus' selections, but not its own, so the hosts not selected still show what choosing them
   * would add.
   */
  async facets(query: LineFilter, limit: number): Promise<Facets> {
    const filter = await this.expanded(query);
    const own: Record<FacetName, keyof LineFilter> = { host: 'hosts', app: 'apps', level: 'levels', tag: 'tags' };
    const expressions: Record<FacetName, string> = { host: 'host', app: 'app', level: 'level', tag: 'arrayJoin(tags)' };
    const params: SqlParams = { facetLimit: limit };
    const parts = (Object.keys(own) as FacetName[]).map((name) => {
      const { where, params: selectionParams } = this.selection({ ...filter, [own[name]]: undefined });
      // Every part takes the same parameter names with the same values (less its own list), so they merge.
      Object.assign(params, selectionParams);
      return `SELECT '${name}' AS facet, toString(${expressions[name]}) AS value, count() AS count FROM ${this.tables.reads}
        WHERE ${where.join(' AND ')} GROUP BY value ORDER BY count DESC, value LIMIT {facetLimit:UInt32}`;
    });
    const rows = await this.scan<{ facet: FacetName; value: string; count: string }>(parts.join(' UNION ALL '), params);
    const result: Facets = { host: [], app: [], level: [], tag: [] };
    for (const row of rows) result[row.facet].push({ value: row.value, count: Number(row.count) });
    for (const list of Object.values(result)) list.sort((a, b) => b.count - a.count || a.value.localeCompare(b.value));
    return result;
  }

  /** Every field of a filter's lines with its top values and, for numbers, stats (field-stats.ts). */
  async fieldStats(filter: LineFilter, options: FieldStatsOptions): Promise<StoredFieldStats> {
    const { where, params } = this.selection(await this.expanded(filter));
    return fieldStats(this.executor, this.tables.reads, where.join(' AND '), params, options);
  }

  /**
   * An organisation's lines and bytes per UTC day, its `top` apps and hosts by bytes, and how many
   * lines had their meta left unindexed, within a time range (and its retention).
   */
  async usage(account: string, fromMs: number, toMs: number, top: number, condition?: SqlCondition): Promise<StoredUsage> {
    const { where, params } = this.selection(await this.expanded({ account, fromMs, toMs, condition }));
    params.top = top;
    const selected = where.join(' AND ');
    const volume = (row: { lines: string; bytes: string }): Volume => ({ lines: Number(row.lines), bytes: Number(row.bytes) });
    const days = await this.scan<{ day: string; lines: string; bytes: string }>(
      `SELECT toString(toDate(ts)) AS day, count() AS lines, sum(size) AS bytes FROM ${this.tables.reads}
        WHERE ${selected} GROUP BY day ORDER BY day`,
      params,
    );
    const ranked = (column: 'app' | 'host') =>
      this.scan<{ name: string; lines: string; bytes: string }>(
        `SELECT ${column} AS name, count() AS lines, sum(size) AS bytes FROM ${this.tables.reads}
          WHERE ${selected} GROUP BY name ORDER BY bytes DESC, lines DESC, name LIMIT {top:UInt32}`,
        params,
      );
    const apps = await ranked('app');
    const hosts = await ranked('host');
    // Ingest leaves meta_indexed false for a meta object only when a field's type clashes or the
    // daily cap is reached (ingest/intake.ts); meta that is no object, or cut at the size limit
    // (so no longer valid JSON), is never indexed and not counted. meta_indexed is read first, so
    // meta is read only where some line was left unindexed.
    const [unindexed] = await this.scan<{ lines: string }>(
      `SELECT count() AS lines FROM ${this.tables.reads}
        WHERE ${selected} AND NOT meta_indexed AND startsWith(meta, '{') AND isValidJSON(meta)`,
      params,
    );
    const totals = days.reduce((sum, day) => ({ lines: sum.lines + Number(day.lines), bytes: sum.bytes + Number(day.bytes) }), { lines: 0, bytes: 0 });
    return {
      totals: { ...totals, metaUnindexedLines: Number(unindexed?.lines ?? 0) },
      days: days.map((row) => ({ day: row.day, ...volume(row) })),
      apps: apps.map((row) => ({ name: row.name, ...volume(row) })),
      hosts: hosts.map((row) => ({ name: row.name, ...volume(row) })),
    };
  }

  /**
   * Lines and bytes per app, host or tag among a filter's lines, largest first by `by` (bytes for
   * Mezmo's /v2/usage/{apps,hosts,tags}, lines for v1), at most `limit`. A line with several tags
   * counts for each.
   */
  async volumeBy(filter: LineFilter, dimension: 'app' | 'host' | 'tag', limit: number, by: 'lines' | 'bytes' = 'bytes'): Promise<Array<Volume & { name: string }>> {
    const { where, params } = this.selection(await this.expanded(filter));
    params.limit = limit;
    const expression = dimension === 'tag' ? 'arrayJoin(tags)' : dimension;
    const order = by === 'lines' ? 'lines DESC, bytes DESC' : 'bytes DESC, lines DESC';
    const rows = await this.scan<{ name: string; lines: string; bytes: string }>(
      `SELECT toString(${expression}) AS name, count() AS lines, sum(size) AS bytes FROM ${this.tables.reads}
        WHERE ${where.join(' AND ')} GROUP BY name ORDER BY ${order}, name LIMIT {limit:UInt32}`,
      params,
    );
    return rows.map((row) => ({ name: row.name, lines: Number(row.lines), bytes: Number(row.bytes) }));
  }

  /**
   * The distinct apps and hosts of a filter's lines, most lines first (then by name), at most
   * `limit` of each: what a group's scope lets through (people/admits.ts).
   */
  async namesByLines(query: LineFilter, limit: number): Promise<{ apps: string[]; hosts: string[] }> {
    const { where, params } = this.selection(await this.expanded(query));
    params.limit = limit;
    const part = (column: 'app' | 'host') =>
      `SELECT '${column}' AS kind, ${column} AS name, count() AS lines FROM ${this.tables.reads}
        WHERE ${where.join(' AND ')} GROUP BY name ORDER BY lines DESC, name LIMIT {limit:UInt32}`;
    const rows = await this.scan<{ kind: 'app' | 'host'; name: string; lines: string }>(`${part('app')} UNION ALL ${part('host')}`, params);
    // UNION ALL keeps no order between its parts: each list is put in order again.
    const ranked = (kind: 'app' | 'host') =>
      rows
        .filter((row) => row.kind === kind)
        .sort((a, b) => Number(b.lines) - Number(a.lines) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .map((row) => row.name);
    return { apps: ranked('app'), hosts: ranked('host') };
  }

  /**
   * The distinct meta field paths (meta-paths-sql.ts) that a filter's lines carry in meta indexed
   * as fields, sorted. Lines whose meta was kept as text only (a type clash, the daily cap) name
   * none: their paths may disagree with the organisation's types.
   */
  async metaFieldPaths(filter: LineFilter): Promise<string[]> {
    const { where, params } = this.selection(await this.expanded(filter));
    const rows = await this.scan<{ path: string }>(
      `SELECT DISTINCT arrayJoin(${META_FIELD_PATHS}) AS path FROM ${this.tables.reads}
        WHERE ${where.join(' AND ')} AND meta_indexed AND startsWith(meta, '{') ORDER BY path`,
      params,
    );
    return rows.map((row) => row.path);
  }

  /** A filter's lines grouped by their masked text, for log patterns (line-patterns.ts). */
  async patternGroups(filter: LineFilter, options: PatternGroupOptions): Promise<PatternGroup[]> {
    return patternGroups(this.executor, await this.patternSelection(filter), options);
  }

  /** The text of a filter's lines at these positions, by "ts:id" (line-patterns.ts). */
  async linesAt(filter: LineFilter, positions: Array<{ ts: number; id: string }>): Promise<Map<string, string>> {
    return linesAt(this.executor, await this.patternSelection(filter), positions);
  }

  /** For each pattern, whether a masked text of a filter's lines (holding a needle, given some) matches it (line-patterns.ts). */
  async anyMaskedMatch(filter: LineFilter, fits: MaskedFit[], needles?: string[]): Promise<boolean[]> {
    return anyMaskedMatch(this.executor, await this.patternSelection(filter), fits, needles);
  }

  private async patternSelection(filter: LineFilter): Promise<Selection> {
    return { table: this.tables.reads, ...this.selection(await this.expanded(filter)) };
  }

  /** The lines and bytes of a filter's lines. */
  async volume(filter: LineFilter): Promise<Volume> {
    const { where, params } = this.selection(await this.expanded(filter));
    const [row] = await this.scan<{ lines: string; bytes: string }>(
      `SELECT count() AS lines, sum(size) AS bytes FROM ${this.tables.reads} WHERE ${where.join(' AND ')}`,
      params,
    );
    return { lines: Number(row?.lines ?? 0), bytes: Number(row?.bytes ?? 0) };
  }

  /**
   * Matching lines per alert window: windows `intervalMs` wide aligned to the epoch (as the live
   * evaluator aligns them), each with its count and its newest line's time, and, given `nth`, the
   * time of its nth line (when a presence + immediate alert would have reached its limit). Only
   * windows with lines are returned, oldest first.
   */
  async alertWindows(filter: LineFilter, intervalMs: number, nth?: number): Promise<AlertWindowCount[]> {
    const { where, params } = this.selection(await this.expanded(filter));
    params.intervalMs = intervalMs;
    // Inlined, not bound: an aggregate function's parameter cannot be a query parameter.
    const n = nth !== undefined && Number.isSafeInteger(nth) && nth > 0 ? nth : undefined;
    const nthColumn = n ? `, toUnixTimestamp64Milli(arrayElement(groupArraySorted(${n})(ts), ${n})) AS nth` : '';
    const rows = await this.scan<{ window: string; count: string; last: string; nth?: string }>(
      `SELECT intDiv(toUnixTimestamp64Milli(ts), {intervalMs:Int64}) * {intervalMs:Int64} AS window, count() AS count,
              toUnixTimestamp64Milli(max(ts)) AS last${nthColumn}
         FROM ${this.tables.reads} WHERE ${where.join(' AND ')}
        GROUP BY window ORDER BY window`,
      params,
    );
    return rows.map((row) => ({
      windowStart: Number(row.window),
      count: Number(row.count),
      lastMs: Number(row.last),
      ...(n && Number(row.count) >= n ? { nthMs: Number(row.nth) } : {}),
    }));
  }

  /** One line, by its position, if it meets `condition` (a reader's access scope). */
  async lineAt(account: string, position: LinePosition, condition?: SqlCondition): Promise<StoredLine | undefined> {
    for await (const rows of this.read(
      { account, fromMs: position.ts, toMs: position.ts, condition },
      { prefer: 'head', limit: 1, after: { ts: position.ts, id: String(BigInt(position.id) - 1n) }, chronological: true },
    )) {
      return rows.find((row) => row.id === position.id);
    }
    return undefined;
  }

  /**
   * Lines on disk for an organisation, including any past its retention that are not yet removed
   * (reads never return those).
   */
  async storedLines(account: string): Promise<number> {
    const [{ lines }] = await this.executor.rows<{ lines: string }>(`SELECT count() AS lines FROM ${this.tables.reads} WHERE account = {account:String}`, { account });
    return Number(lines);
  }

  /** The stored days, oldest first, with their newest line and size: what retention looks at. */
  async days(): Promise<StoredDay[]> {
    const rows = await this.executor.rows<{ id: string; newest: string; lines: string; bytes: string }>(
      `SELECT partition_id AS id, toUnixTimestamp(max(max_time)) AS newest, sum(rows) AS lines, sum(bytes_on_disk) AS bytes
         FROM ${this.tables.parts} WHERE database = currentDatabase() AND table = '${this.tables.stored}' AND active
        GROUP BY partition_id ORDER BY partition_id`,
    );
    return rows.map((row) => ({ id: row.id, newestMs: Number(row.newest) * 1000 + 999, lines: Number(row.lines), bytesOnDisk: Number(row.bytes) }));
  }

  /** The days (partition ids) holding restored lines still kept at `nowMs`: retention must not drop them whole. */
  async restoredDays(nowMs: number): Promise<Set<string>> {
    const rows = await this.executor.rows<{ day: string }>(
      `SELECT DISTINCT toString(toYYYYMMDD(ts)) AS day FROM ${this.tables.reads} WHERE restored_until > fromUnixTimestamp64Milli({nowMs:Int64})`,
      { nowMs },
    );
    return new Set(rows.map((row) => row.day));
  }

  /** Deletes a day's lines except the restored ones still kept; returns how many. */
  async deleteDayExceptRestored(id: string, nowMs: number): Promise<number> {
    if (!/^\d{8}$/.test(id)) throw new Error(`not a day's partition id: ${id}`);
    const params = { day: Number(id), nowMs };
    const condition = 'toYYYYMMDD(ts) = {day:UInt32} AND restored_until <= fromUnixTimestamp64Milli({nowMs:Int64})';
    const [{ lines }] = await this.executor.rows<{ lines: string }>(`SELECT count() AS lines FROM ${this.tables.reads} WHERE ${condition}`, params);
    if (Number(lines) > 0) await this.executor.exec(`DELETE FROM ${this.tables.stored}${this.tables.onCluster} WHERE ${condition}`, params);
    return Number(lines);
  }

  /** Of these ids, those an organisation has stored in a time range (a restore skips them). */
  async storedIds(account: string, fromMs: number, toMs: number, ids: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (let at = 0; at < ids.length; at += 10_000) {
      const rows = await this.executor.rows<{ line_id: string }>(
        `SELECT toString(id) AS line_id FROM ${this.tables.reads} WHERE account = {account:String}
           AND ts >= fromUnixTimestamp64Milli({fromMs:Int64}) AND ts <= fromUnixTimestamp64Milli({toMs:Int64}) AND has(arrayMap(x -> toUInt64(x), {ids:Array(String)}), id)`,
        { account, fromMs, toMs, ids: ids.slice(at, at + 10_000) },
      );
      for (const row of rows) found.add(row.line_id);
    }
    return found;
  }

  /**
   * Writes lines restored from the archive (encoded by row-encoding.ts), then marks them kept
   * until `untilMs`. Until marked they are as old lines are: hidden by retention.
   */
  async insertRestored(encodedRows: InsertPayload, account: string, ids: string[], untilMs: number): Promise<void> {
    await this.executor.insertTabSeparated(this.tables.reads, INSERT_COLUMNS, encodedRows);
    for (let at = 0; at < ids.length; at += 10_000) {
      await this.executor.exec(
        `ALTER TABLE ${this.tables.stored}${this.tables.onCluster} UPDATE restored_until = fromUnixTimestamp64Milli({untilMs:Int64})
          WHERE account = {account:String} AND has(arrayMap(x -> toUInt64(x), {ids:Array(String)}), id) SETTINGS mutations_sync = 2`,
        { untilMs, account, ids: ids.slice(at, at + 10_000) },
      );
    }
  }

  /** Removes a whole day at once: the engine drops its files, nothing is rewritten. */
  async dropDay(id: string): Promise<void> {
    if (!/^\d{8}$/.test(id)) throw new Error(`not a day's partition id: ${id}`);
    await this.executor.exec(`ALTER TABLE ${this.tables.stored}${this.tables.onCluster} DROP PARTITION ID '${id}'`);
  }

  /**
   * Deletes an organisation's lines older than a time, where the days they are in must stay for
   * other organisations. A lightweight delete: the rows are masked at once and their bytes go with
   * the next merge. Returns how many lines it deleted.
   */
  async deleteLinesBefore(account: string, beforeMs: number): Promise<number> {
    const params = { account, beforeMs };
    const condition = 'account = {account:String} AND ts < fromUnixTimestamp64Milli({beforeMs:Int64}) AND restored_until <= now64(3)';
    // The primary key (account, ts) answers this from the index; most hours there is nothing to do.
    const [{ lines }] = await this.executor.rows<{ lines: string }>(`SELECT count() AS lines FROM ${this.tables.reads} WHERE ${condition}`, params);
    if (Number(lines) > 0) await this.executor.exec(`DELETE FROM ${this.tables.stored}${this.tables.onCluster} WHERE ${condition}`, params);
    return Number(lines);
  }

  /**
   * For the archiver (src/archive): an organisation's lines per hour of their time that arrived
   * in a pass. Arrival is read from the line id, which ingest numbers from the arrival clock
   * (ingest/line-ids.ts), so it is durable and the same on every read. A pass takes the lines
   * that arrived from `configuredAt` to `passedTo` in hours before `eligibleBefore`, except those a
   * previous pass took: lines that arrived before `passedFrom` in hours before `eligibleFrom`.
   * Read without the retention filter: a line past retention that is still stored is archived.
   */
  async archiveHours(account: string, pass: ArchivePass): Promise<Array<{ hour: number; lines: number }>> {
    const rows = await this.executor.rows<{ hour: string; lines: string }>(
      `SELECT intDiv(toUnixTimestamp64Milli(ts), 3600000) * 3600000 AS hour, count() AS lines FROM ${this.tables.reads}
        WHERE account = {account:String} AND id >= {configuredId:UInt64} AND id < {toId:UInt64}
          AND ts < fromUnixTimestamp64Milli({eligibleBefore:Int64})
          AND (id >= {fromId:UInt64} OR ts >= fromUnixTimestamp64Milli({eligibleFrom:Int64}))
        GROUP BY hour ORDER BY hour`,
      {
        account,
        configuredId: arrivalId(pass.configuredAt),
        fromId: arrivalId(pass.passedFrom),
        toId: arrivalId(pass.passedTo),
        eligibleBefore: pass.eligibleBefore,
        eligibleFrom: pass.eligibleFrom,
      },
    );
    return rows.map((row) => ({ hour: Number(row.hour), lines: Number(row.lines) }));
  }

  /**
   * One archive file, made by the engine: an hour's lines (by time) that arrived in a window, in
   * time order, each as its export record's JSON text (archive-record-sql.ts), one a line, gzip at
   * `level`. The lines are read once; their number comes from the time and id columns alone.
   */
  async archiveObject(account: string, hourMs: number, arrivalFrom: number, arrivalTo: number, level: number): Promise<{ body: Buffer; lines: number }> {
    const where = `account = {account:String} AND ts >= fromUnixTimestamp64Milli({fromMs:Int64}) AND ts < fromUnixTimestamp64Milli({toMs:Int64})
        AND id >= {fromId:UInt64} AND id < {toId:UInt64}`;
    const params = { account, fromMs: hourMs, toMs: hourMs + 3_600_000, fromId: arrivalId(arrivalFrom), toId: arrivalId(arrivalTo) };
    const [{ lines }] = await this.executor.rows<{ lines: string }>(`SELECT count() AS lines FROM ${this.tables.reads} WHERE ${where}`, params);
    const records = `SELECT archive_record FROM (SELECT ts, id, ${ARCHIVE_RECORD_COLUMNS} FROM ${this.tables.reads} WHERE ${where}) ORDER BY ts, id SETTINGS ${ARCHIVE_RECORD_SETTINGS}`;
    const body = await this.executor.gzipLines(records, params, level);
    return { body, lines: Number(lines) };
  }

  /**
   * Archived lines, read from object storage by the engine itself (its s3() table function reads
   * the gzip JSON Lines objects, choosing gzip by their .gz names): each row is an export record as
   * archived, in time order (`direction`), within a time range and strictly after `after` when
   * given. `objects` are the objects' URLs, already limited to the hours in range.
   */
  readArchive(objects: ArchiveObjects, filter: { account: string; fromMs: number; toMs: number; after?: LinePosition }, direction: 'ASC' | 'DESC'): AsyncIterable<Array<{ json: string }>> {
    if (objects.urls.length === 0) return (async function* () {})();
    const credentials = `${sqlString(objects.accessKey)}, ${sqlString(objects.secretKey)}`;
    const sources = objects.urls.map((url) => `SELECT json FROM s3(${sqlString(url)}, ${credentials}, 'JSONAsString')`).join(' UNION ALL ');
    const params: SqlParams = { account: filter.account, fromMs: filter.fromMs, toMs: filter.toMs };
    let after = '';
    if (filter.after) {
      params.afterTs = filter.after.ts;
      params.afterId = filter.after.id;
      after = ` AND (ts_ms, line_id) ${direction === 'ASC' ? '>' : '<'} ({afterTs:Int64}, {afterId:UInt64})`;
    }
    const sql = `SELECT json FROM (
        SELECT json, JSONExtractInt(json, '_ts') AS ts_ms, toUInt64OrZero(JSONExtractString(json, '_id')) AS line_id FROM (${sources})
      ) WHERE JSONExtractString(json, '_account') = {account:String} AND ts_ms >= {fromMs:Int64} AND ts_ms <= {toMs:Int64}${after}
      ORDER BY ts_ms ${direction}, line_id ${direction}`;
    return this.executor.stream<{ json: string }>(sql, params);
  }

  /**
   * Size of the stored data, and how many background merges are running on it: for operators and
   * the benchmarks' bytes-per-line figures.
   */
  async stats(): Promise<{ rows: number; activeParts: number; bytesOnDisk: number; merges: number; mergeMemory: number }> {
    // One read of each system table: on a cluster each is a fan-out to every replica.
    const [row] = await this.executor.rows<{ rows: string; parts: string; bytes: string; merges: string; merge_memory: string }>(
      `SELECT rows, parts, bytes, merges, merge_memory
         FROM (SELECT sum(rows) AS rows, count() AS parts, sum(bytes_on_disk) AS bytes
                 FROM ${this.tables.parts} WHERE database = currentDatabase() AND table = '${this.tables.stored}' AND active) AS stored
        CROSS JOIN (SELECT count() AS merges, sum(memory_usage) AS merge_memory
                      FROM ${this.tables.merges} WHERE database = currentDatabase() AND table = '${this.tables.stored}') AS merging`,
    );
    return {
      rows: Number(row?.rows ?? 0),
      activeParts: Number(row?.parts ?? 0),
      bytesOnDisk: Number(row?.bytes ?? 0),
      merges: Number(row?.merges ?? 0),
      mergeMemory: Number(row?.merge_memory ?? 0),
    };
  }
}

/** Archive objects to read (LogStore.readArchive): their URLs (a URL may name several with {a,b} globs) and the bucket's credentials. */
export interface ArchiveObjects {
  urls: string[];
  accessKey: string;
  secretKey: string;
}

/** One archiver pass's bounds (LogStore.archiveHours); times in Unix ms. */
export interface ArchivePass {
  configuredAt: number;
  passedFrom: number;
  passedTo: number;
  eligibleFrom: number;
  eligibleBefore: number;
}

/**
 * The smallest line id of lines that arrived at or after `ms`: ids are (arrival ms × 1024 +
 * counter) × 1000 + node slot (ingest/line-ids.ts). A burst that borrowed ids from the next
 * millisecond counts as arriving then, on every read alike.
 */
export const arrivalId = (ms: number): string => String(BigInt(Math.max(0, Math.floor(ms))) * 1_024_000n);

async function* withMillis(chunks: AsyncIterable<Array<StoredLine & { ts_ms: string }>>): AsyncIterable<StoredLine[]> {
  for await (const rows of chunks) {
    for (const row of rows) row.ts = Number(row.ts_ms);
    yield rows;
  }
}
