import type { AccessScope } from '../query/access-scope.js';
import { lineMatcher } from '../query/line-matcher.js';
import type { ConfigKysely } from '../repository/open.js';
import type { LinePosition, LogStore } from '../store/log-store.js';
import type { StoredLine } from '../store/types.js';
import type { ArchiveConfigs, ArchiveTarget } from './archive-config.js';
import { refuseInternalHost } from './endpoint-check.js';
import { HOUR_MS } from './object-names.js';

/** What a search of the archive asks: export's parameters, the query as text (the matcher compiles it). */
export interface ArchiveQuery {
  fromMs: number;
  toMs: number;
  hosts?: string[];
  apps?: string[];
  levels?: string[];
  tags?: string[];
  query?: string;
  scope: AccessScope;
}

export interface ArchiveReadOptions {
  prefer: 'head' | 'tail';
  limit: number;
  after?: LinePosition;
  chronological: boolean;
}

/** Objects named in one s3() URL: ClickHouse expands `{a,b,...}`, and a URL stays well under any length limit. */
const OBJECTS_PER_URL = 100;

/** The export record's own keys; every other top-level key came from the line's parsed fields. */
const RECORD_KEYS = new Set(['_id', '_ts', 'timestamp', '_line', '_app', '_host', '_file', '_ip', '_mac', '_account', '_bid', '_ingester', '_logtype', '_mezmo_line_size', 'level', 'env', 'tags', 'meta', '_metaUnindexed']);

/** The stored line an archived export record was made from (exportRecord gives the record back unchanged). */
export function storedLineOf(record: Record<string, any>): StoredLine {
  const fields: Record<string, unknown> = {};
  let hasFields = false;
  for (const [key, value] of Object.entries(record)) {
    if (RECORD_KEYS.has(key)) continue;
    fields[key] = value;
    hasFields = true;
  }
  const meta = record.meta === undefined ? '' : typeof record.meta === 'string' ? record.meta : JSON.stringify(record.meta);
  return {
    account: String(record._account ?? ''),
    ts: Number(record._ts),
    id: String(record._id),
    batch_id: String(record._bid ?? ''),
    host: String(record._host ?? ''),
    app: String(record._app ?? ''),
    level: String(record.level ?? ''),
    env: String(record.env ?? ''),
    file: String(record._file ?? ''),
    ip: String(record._ip ?? ''),
    mac: String(record._mac ?? ''),
    tags: Array.isArray(record.tags) ? record.tags.map(String) : [],
    line: String(record._line ?? ''),
    logtype: String(record._logtype ?? ''),
    fields: hasFields ? JSON.stringify(fields) : '',
    meta,
    meta_indexed: record._metaUnindexed === undefined,
    meta_note: record._metaUnindexed && record._metaUnindexed !== 'unknown' ? String(record._metaUnindexed) : '',
    extra: '',
    size: Number(record._mezmo_line_size ?? 0),
  } as StoredLine;
}

/** Where the bucket's objects are, as the engine's s3() reads them: path-style or virtual-hosted. */
function bucketUrl(target: ArchiveTarget): string {
  if (!target.endpoint) return `https://${target.bucket}.s3.${target.region || 'us-east-1'}.amazonaws.com/`;
  const endpoint = new URL(target.endpoint);
  const base = endpoint.pathname.replace(/\/+$/, '');
  if (target.forcepathstyle) return `${endpoint.protocol}//${endpoint.host}${base}/${target.bucket}/`;
  return `${endpoint.protocol}//${target.bucket}.${endpoint.host}${base}/`;
}

/**
 * `source=archive` on export: an organisation's archived lines, searched in its bucket with the
 * same query language. Only the objects of the hours in range are read (the archive record names
 * them), by the engine's own s3() table function; the query, the filters and the reader's access
 * scope are applied by the search language's in-memory matcher, which agrees with its SQL.
 */
export class ArchiveSearch {
  constructor(
    private readonly db: ConfigKysely,
    private readonly configs: ArchiveConfigs,
    private readonly store: LogStore,
    /** LOGSTEAD_ALLOW_PRIVATE_ARCHIVES: false, an endpoint now resolving inside is refused (PrivateArchiveEndpoint). */
    private readonly allowPrivate = true,
  ) {}

  /** Whether the organisation archives at all. */
  async configured(account: string): Promise<boolean> {
    return (await this.configs.view(account)) !== undefined;
  }

  /** The first hour from `fromHour` to `toMs` with an archived object written, if any (a restore's next step). */
  async nextHour(account: string, fromHour: number, toMs: number): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('archive_files')
      .select('hour')
      .where('account', '=', account)
      .where('status', '=', 'written')
      .where('hour', '>=', fromHour)
      .where('hour', '<=', toMs)
      .orderBy('hour')
      .limit(1)
      .executeTakeFirst();
    return row ? Number(row.hour) : undefined;
  }

  /** Matching archived lines, at most `limit`, in the order export reads the store in. */
  async read(account: string, query: ArchiveQuery, options: ArchiveReadOptions): Promise<StoredLine[]> {
    const target = await this.configs.target(account);
    if (!target) return [];
    const keys = (
      await this.db
        .selectFrom('archive_files')
        .select('object_key')
        .where('account', '=', account)
        .where('status', '=', 'written')
        .where('hour', '>=', Math.floor(query.fromMs / HOUR_MS) * HOUR_MS)
        .where('hour', '<=', query.toMs)
        .orderBy('hour')
        .orderBy('seq')
        .execute()
    ).map((row) => row.object_key);
    const base = bucketUrl(target);
    // Checked at each search (and restore): the name may point elsewhere than when it was saved.
    if (!this.allowPrivate && target.endpoint) await refuseInternalHost(new URL(base).hostname);
    const urls: string[] = [];
    for (let at = 0; at < keys.length; at += OBJECTS_PER_URL) {
      const group = keys.slice(at, at + OBJECTS_PER_URL);
      urls.push(group.length === 1 ? `${base}${group[0]}` : `${base}{${group.join(',')}}`);
    }
    const matches = lineMatcher({ query: query.query, hosts: query.hosts, apps: query.apps, levels: query.levels, tags: query.tags }, query.scope);
    const found: StoredLine[] = [];
    const chunks = this.store.readArchive(
      { urls, accessKey: target.accesskey, secretKey: target.secretkey },
      { account, fromMs: query.fromMs, toMs: query.toMs, after: options.after },
      options.prefer === 'head' ? 'ASC' : 'DESC',
    );
    reading: for await (const rows of chunks) {
      for (const row of rows) {
        const line = storedLineOf(JSON.parse(row.json));
        if (!matches(line)) continue;
        found.push(line);
        if (found.length >= options.limit) break reading;
      }
    }
    if (options.prefer === 'tail' && options.chronological) found.reverse();
    return found;
  }
}
