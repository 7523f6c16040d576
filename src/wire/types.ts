/**
 * The JSON the HTTP APIs answer with, shared by the server's routes and the web app (src/web).
 * Types only: nothing here may import server code, so the browser build can take it as it is.
 */

/** One line as /v1/export, /v2/export, the live tail and the viewer APIs give it. */
export interface ExportRecord {
  _id: string;
  _ts: number;
  timestamp: string;
  _line: string;
  _app: string;
  _host: string;
  _file?: string;
  _ip?: string;
  _mac?: string;
  _account?: string;
  _bid?: string;
  _ingester?: string;
  _logtype?: string;
  _mezmo_line_size?: number;
  level: string;
  env?: string;
  tags?: string[];
  meta?: unknown;
  /**
   * Present when the line's meta is kept as text only (not searchable as fields), saying why:
   * its type differs from the type a field already has, the organisation's daily cap on new
   * fields was reached, it is over the 32 KB limit, it is not an object, or (lines stored before
   * the reason was recorded) unknown.
   */
  _metaUnindexed?: MetaUnindexedReason;
  /** Fields parsed from a JSON line, at the top level. */
  [field: string]: unknown;
}

export type MetaUnindexedReason = 'type-conflict' | 'daily-cap' | 'too-large' | 'not-an-object' | 'unknown';

/** GET /v2/export. */
export interface ExportPage {
  lines: ExportRecord[];
  pagination_id: string | null;
}

/** One bucket of GET /v1/histogram. */
export interface HistogramBucket {
  /** Start of the bucket, Unix ms. */
  ts: number;
  count: number;
  /** Counts per level; lines without a level count under "". */
  levels: Record<string, number>;
}

/** GET /v1/histogram. */
export interface HistogramResponse {
  from: number;
  to: number;
  /** Bucket width in ms. */
  interval: number;
  buckets: HistogramBucket[];
}

/** One log pattern of GET /v1/viewer/patterns. */
export interface LogPattern {
  /** Stable for the same template, whatever range or search found it. */
  id: string;
  /** The lines' constant text with each variable part as `<*>`. */
  template: string;
  /** Matching lines of this pattern, exact. */
  lines: number;
  /** lines / the answer's lines. */
  share: number;
  /** Unix ms of its first and last matching line. */
  first: number;
  last: number;
  /** Its first matching line's text. */
  example: string;
  /** A search that finds every line of the pattern (it may find others; '' when no word of it is constant). */
  query: string;
  /** No line of the same search in the window before the range fits the template (PatternsResponse.before). */
  new: boolean;
  /** Lines per bucket of the range (PatternsResponse.interval wide, from `from`). */
  volume: number[];
}

/** GET /v1/viewer/patterns: the search's lines grouped into templates, most lines first. */
export interface PatternsResponse {
  /** Every matching line: the patterns' lines, with others.lines, sum to it. */
  lines: number;
  from: number;
  to: number;
  /** Width in ms of each pattern's volume bucket. */
  interval: number;
  /** The window of equal length just before `from` in which a pattern's lines make it not new. */
  before: { from: number; to: number };
  patterns: LogPattern[];
  /** The patterns past `limit`, and their lines. */
  others: { patterns: number; lines: number };
}

export type FacetName = 'host' | 'app' | 'level' | 'tag';

/** GET /v1/viewer/facets: each menu's values, counted under every selection but its own. */
export type Facets = Record<FacetName, Array<{ value: string; count: number }>>;

/** A field's type in GET /v1/viewer/fields: the type most of its values have (docs/search.md). */
export type FieldType = 'string' | 'number' | 'boolean';

/** A numeric field's figures over its numeric values; percentiles are exact (values that occur). */
export interface FieldStats {
  min: number;
  max: number;
  avg: number;
  p50: number;
  p95: number;
  p99: number;
}

/** One field of GET /v1/viewer/fields. */
export interface FieldSummary {
  /** The name search finds it by: `status`, `meta.customer`, `app`. */
  name: string;
  type: FieldType;
  /** Matching lines that have the field. */
  lines: number;
  /** Its most frequent values, most lines first, with exact counts. */
  top: Array<{ value: string; lines: number }>;
  /** For a number only. */
  stats?: FieldStats;
}

/** GET /v1/viewer/fields: the fields the search's lines carry, most lines first. */
export interface FieldsResponse {
  /** Lines the search matches. */
  lines: number;
  fields: FieldSummary[];
}

/** GET /v1/viewer/context. */
export interface ContextResponse {
  line: ExportRecord;
  by: 'host' | 'app' | 'both';
  before: ExportRecord[];
  after: ExportRecord[];
}

/** An alert channel as the configuration API reads it back. */
export interface Channel {
  alertid?: string;
  integration: string;
  operator?: string;
  triggerlimit: number;
  triggerinterval?: string;
  immediate?: boolean;
  terminal?: boolean;
  emails?: string[];
  timezone?: string;
  url?: string;
  method?: string;
  headers?: Record<string, string>;
  bodyTemplate?: string;
  key?: string;
  /** Slack: the colour bar, `#rrggbb`. */
  color?: string;
  /** OpsGenie: `us` or `eu`. */
  region?: string;
  /** VictorOps: the routing key. */
  routingkey?: string;
  /** OpsGenie, VictorOps: close what fired once a window of `autoresolveinterval` has fewer than `autoresolvelimit` lines. */
  autoresolve?: boolean;
  autoresolveinterval?: string;
  autoresolvelimit?: number;
  /** Who set its target (read only): a member, a service key of full rights, or a removed member. */
  setter?: { email: string } | { key: string } | { removed: true } | null;
  /** Why nothing is sent to its target (read only): its setter is gone, until an admin takes it over. */
  held?: string;
}

/** A view as GET /v1/config/view(/:viewid) reads it. */
export interface View {
  viewid: string;
  name: string;
  query: string;
  hosts: string[];
  apps: string[];
  levels: string[];
  tags: string[];
  category: string[];
  description?: string;
  presetids: string[];
  channels: Channel[];
  account?: string;
  _created?: string;
  _modified?: string;
}

/**
 * Something a saved view will not do as its author may expect (the view is saved all the same):
 * POST and PUT /v1/config/view answer with `warnings` when there are any.
 */
export interface ViewWarning {
  /** The channel's position in the body's `channels`, from 0. */
  channel: number;
  code: 'smtp-not-configured' | 'internal-address' | 'setter-removed' | 'setter-sees-none';
  message: string;
}

/** POST / PUT /v1/config/view: the view in the write dialect, plus warnings. */
export type SavedView = Omit<View, 'channels'> & { channels: Array<Record<string, unknown>>; warnings?: ViewWarning[] };

export interface Preset {
  presetid: string;
  name: string;
  channels: Channel[];
}

/** One attempt to deliver a notification. */
export interface DeliveryAttempt {
  /** Unix ms. */
  at: number;
  outcome: 'delivered' | 'will retry' | 'failed' | string;
  detail: string;
  /** The receiver's HTTP status or SMTP reply code; null when no answer came. */
  status: number | null;
}

/** One entry of GET /v1/alerts/deliveries. */
export interface DeliveryLogEntry {
  id: number;
  integration: string;
  /** The URL or the e-mail addresses. */
  target: string;
  status: 'pending' | 'delivered' | 'failed';
  viewid: string | null;
  alertid: string | null;
  /** The alert's kind (immediate, terminal, absence); null for deliveries of e-mailed exports. */
  kind: string | null;
  /** The alert window that fired, Unix ms; null without an alert. */
  windowStart: number | null;
  /** Lines the notification counted; null without an alert. */
  matches: number | null;
  created: number;
  updated: number;
  /** Attempts after the first. */
  retries: number;
  attempts: DeliveryAttempt[];
}

/** POST /v1/alerts/test-channel. */
export interface TestSendResult {
  ok: boolean;
  /** The receiver's HTTP status or SMTP reply code; null when none came (refused, unreachable, no SMTP). */
  status: number | null;
  detail: string;
}

/** POST /v1/alerts/backtest: one firing the rule would have made. */
export interface BacktestFiring {
  /** When it would have fired, Unix ms. */
  at: number;
  windowStart: number;
  windowEnd: number;
  kind: 'immediate' | 'terminal' | 'absence' | 'resolve';
  /** Lines the notification would have carried as its count. */
  lines: number;
  /** All matching lines of the window. */
  windowLines: number;
}

export interface BacktestResponse {
  firings: BacktestFiring[];
  /** Whole windows evaluated. */
  windows: number;
  evaluatedFrom: number;
  evaluatedTo: number;
  /** Window width, ms. */
  intervalMs: number;
}

/** One detail of a validation error (400 with `details`). */
export interface ValidationDetail {
  /** Joi's message, as Mezmo gives it. */
  message: string;
  /** Joi's label of the path, e.g. channels[0].url. */
  key: string;
  /** The field in words, e.g. "Alert channel 1: Webhook URL". */
  field: string;
}

/** Every error body: `error` always; the rest by kind. */
export interface ApiErrorBody {
  error: string;
  code?: string;
  status?: string;
  /** A search query that does not parse. */
  position?: number;
  expected?: string;
  details?: ValidationDetail[];
  retryAfter?: number;
  /** A change refused because it would let these members see every line (409; ?widen=true allows it). */
  members?: string[];
}

/** Lines and their bytes (each line's text in UTF-8). */
export interface Volume {
  lines: number;
  bytes: number;
}

/** GET /v1/usage: an organisation's stored volume, and the retention in force (README "Usage"). */
export interface UsageReport {
  account: string;
  /** The range counted, Unix ms: `from` is never earlier than the retention keeps. */
  from: number;
  to: number;
  retentionDays: number;
  /** True when the organisation has no retention of its own (LOGSTEAD_RETENTION_DAYS applies). */
  retentionIsDefault: boolean;
  totals: Volume & { metaUnindexedLines: number };
  /** UTC days with lines, oldest first, e.g. 2026-11-24. */
  days: Array<Volume & { day: string }>;
  topApps: Array<Volume & { name: string }>;
  topHosts: Array<Volume & { name: string }>;
}

/** A member's role, as Mezmo names them; a service key holds `owner`. */
export type Role = 'owner' | 'admin' | 'member' | 'readonly';

/** An element of GET /v1/config/members (Mezmo's shape, plus whether they have signed in). */
export interface Member {
  email: string;
  role: Role;
  /** Ids of the member's groups. */
  groups: string[];
  /** False until the member chooses a password or signs in with single sign-on. */
  active: boolean;
  /** The last sign-in, Unix ms, or null. */
  lastSignIn: number | null;
  created: number;
  modified: number;
}

/** POST /v1/config/members: the member, and what became of the invitation e-mail. */
export interface InvitedMember extends Member {
  invitation: { sent: boolean; detail: string };
}

/** An element of GET /v1/config/groups: `access_scopes` in the shape it was given (a search, or a list). */
export interface Group {
  id: string;
  /** Mezmo's paths name it groupId; both are given so either client finds it. */
  groupId: string;
  name: string;
  access_scopes: unknown;
  /** Exact app and host names its members' lines must have (each list, when not empty). */
  apps: string[];
  hosts: string[];
  /** Members' e-mails. */
  members: string[];
  created: number;
  modified: number;
  /**
   * On the answer to a POST, PUT or PATCH: the apps and hosts of the last day's lines that the
   * group's scope lets through (as the person who saved it sees them), most lines first.
   */
  admits?: GroupAdmits;
}

export interface GroupAdmits {
  apps: string[];
  hosts: string[];
}

/** One change in GET /v1/config/audit. */
export interface AuditRecord {
  /** Unix ms. */
  at: number;
  /** A member's e-mail, `key "<name>" (<id>)`, or `operator (command line)`. */
  actor: string;
  /** The client address the change came from ('' from the command line). */
  address: string;
  /** e.g. `view.create`, `member.update`, `session.sign-in`, `session.sign-in-failed`. */
  action: string;
  resource: string;
  id: string;
  before: unknown;
  after: unknown;
}

/** GET /v1/config/audit: a page, newest first, and the cursor of the next (null on the last). */
export interface AuditPage {
  records: AuditRecord[];
  next: string | null;
}

/** POST, GET and DELETE /v1/archive/restore: a restore of archived lines into the store, as it stands. */
export interface RestoreStatus {
  id: string;
  status: 'running' | 'done' | 'failed' | 'cancelled';
  /** The range restored, Unix ms. */
  from: number;
  to: number;
  query: string;
  /** The hosts, apps, levels and tags it keeps to, as export's parameters (empty: any). */
  hosts: string[];
  apps: string[];
  levels: string[];
  tags: string[];
  /** Until when the restored lines are kept (Unix ms). */
  keptUntil: number;
  /** Archived lines that matched, so far. */
  linesFound: number;
  /** Of those, the ones loaded: lines still stored are not loaded again. */
  linesRestored: number;
  /** How much of the range has been read, 0 to 1 (by time). */
  progress: number;
  error: string | null;
  createdAt: number;
  finishedAt: number | null;
}

/** What a graph of a board measures in each bucket (issue 40; docs/boards.md). */
export type MeasureType = 'count' | 'sum' | 'avg' | 'min' | 'max' | 'unique' | 'p50' | 'p90' | 'p95' | 'p99';

/**
 * `field` is a name as search spells it (`status`, `meta.duration`, `size`, `app`): required by
 * every measure but `count`. `unique` counts the distinct values of any field; the others take a
 * number field, and lines whose value is not a number are left out of them.
 */
export interface GraphMeasure {
  type: MeasureType;
  field?: string;
}

/** A graph's series split by a field: its `limit` most frequent values (by lines), the rest as `other`. */
export interface GraphBreakdown {
  field: string;
  limit: number;
}

/** A graph as the client sends it (POST /v1/viewer/chart takes one without ids). */
export interface GraphSpec {
  title: string;
  query: string;
  apps: string[];
  hosts: string[];
  levels: string[];
  tags: string[];
  measure: GraphMeasure;
  breakdown?: GraphBreakdown;
}

/** A graph on a board. */
export interface Graph extends GraphSpec {
  graphId: string;
}

/** GET /v1/config/board/{boardId}; POST and PUT answer the same. */
export interface Board {
  boardId: string;
  name: string;
  /** The name of the board's category (GET /v1/config/categories/boards), or null: uncategorized. */
  category: string | null;
  graphs: Graph[];
  _created: string;
  _modified: string;
}

/** A board as POST and PUT /v1/config/board take it: graphs without ids get new ones; a graph sent with its id keeps it. */
export interface BoardInput {
  name: string;
  category?: string | null;
  graphs: Array<Partial<GraphSpec> & { graphId?: string; measure: GraphMeasure }>;
}

/** POST /v1/viewer/chart: a graph that is not saved, over a time range (Unix s or ms). */
export interface ChartRequest extends Partial<Omit<GraphSpec, 'measure'>> {
  measure: GraphMeasure;
  from: number;
  to: number;
  /** How many buckets the range is cut into (default 60, at most 1000), as GET /v1/histogram. */
  buckets?: number;
}

/** One line of a chart: [bucket start in Unix ms, value]; null where a bucket has no value for the measure. */
export interface ChartSeries {
  name: string;
  points: Array<[number, number | null]>;
  /** Set on the series of the lines outside a breakdown's top values, named `other`. */
  other?: true;
}

/** GET /v1/board/{boardId}/graph/{graphId}/data and POST /v1/viewer/chart. */
export interface ChartData {
  from: number;
  to: number;
  /** Bucket width in ms. */
  interval: number;
  series: ChartSeries[];
}
