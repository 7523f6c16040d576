/**
 * The browser app's one way to the server. Every path the app calls is written here, typed with
 * the server's own answers (src/wire/types.ts); the app talks to the same APIs as every other
 * client, with its session cookie and CSRF token.
 */

import type {
  ApiErrorBody,
  BacktestResponse,
  ContextResponse,
  DeliveryLogEntry,
  ExportPage,
  ExportRecord,
  Facets,
  FieldsResponse,
  HistogramResponse,
  PatternsResponse,
  Preset,
  SavedView,
  TestSendResult,
  UsageReport,
  View,
  AuditPage,
  Group,
  InvitedMember,
  Member,
  Role,
  RestoreStatus,
  Board,
  BoardInput,
  ChartData,
  ChartRequest,
} from '../../wire/types.js';
import type { ArchiveConfig, ArchiveConfigBody, ArchiveStatus, CreatedKey, KeyInfo } from './admin-types.js';

// The answers' types are the server's own; the app's names for them stay.
export type {
  ApiErrorBody,
  BacktestFiring,
  BacktestResponse,
  Channel,
  ContextResponse,
  DeliveryAttempt,
  DeliveryLogEntry,
  ExportPage as Page,
  ExportRecord as LogLine,
  Facets,
  FieldStats,
  FieldSummary,
  FieldsResponse,
  FieldType,
  HistogramBucket,
  HistogramResponse,
  LogPattern,
  MetaUnindexedReason,
  PatternsResponse,
  Preset,
  SavedView,
  TestSendResult,
  UsageReport,
  ValidationDetail,
  View,
  ViewWarning,
  Volume,
  AuditPage,
  AuditRecord,
  Group,
  GroupAdmits,
  InvitedMember,
  Member,
  Role,
  RestoreStatus,
  Board,
  BoardInput,
  ChartData,
  ChartRequest,
  ChartSeries,
  Graph,
  GraphSpec,
  GraphMeasure,
  MeasureType,
} from '../../wire/types.js';
export type { ArchiveConfig, ArchiveConfigBody, ArchiveStatus, CreatedKey, KeyInfo } from './admin-types.js';

/** GET, POST and DELETE /api/session (and POST /api/password): who is signed in, and the token their writes carry. */
export interface Session {
  account: string;
  /** The organisation's name. */
  name: string;
  /** The member's e-mail; null for a service key's session. */
  email?: string | null;
  role?: Role;
  /** Whether the member's groups limit which lines they see. */
  scoped?: boolean;
  csrfToken: string;
  features?: { email: boolean; sso?: boolean; keySignIn?: boolean };
  /** How many days the organisation's lines are kept. */
  retentionDays?: number;
  /** Whether the organisation archives its lines (so older ranges can be restored). */
  archiving?: boolean;
}

/** GET /api/sign-in: the ways to sign in this server offers. */
export interface SignInOptions {
  password: boolean;
  sso: boolean;
  serviceKey: boolean;
}

/** GET /api/password?token=: what a one-time link is for. */
export interface PasswordLink {
  purpose: 'invite' | 'reset' | 'owner';
  email: string | null;
  organisation: string;
  /** Unix ms. */
  expires: number;
}


/** A custom parsing rule (/v1/config/parsers); `types` maps a capture to string, number or boolean. */
export interface ParserRule {
  id: string;
  name: string;
  apps: string[];
  hosts: string[];
  query: string;
  pattern: string;
  types: Record<string, 'string' | 'number' | 'boolean'>;
  created: number;
  updated: number;
}
export type ParserBody = Pick<ParserRule, 'name' | 'apps' | 'hosts' | 'query' | 'pattern' | 'types'>;

/** POST /v1/config/parsers/test: each line and the fields the pattern would give it (null when it does not match). */
export interface ParserTestResult {
  lines: Array<{ line: string; matched: boolean; fields: Record<string, unknown> | null; level?: string }>;
}

/** A group as the editor sends it (POST, or PUT to replace it whole). */
export interface GroupBody {
  name: string;
  access_scopes: string | string[];
  apps: string[];
  hosts: string[];
}

export interface AuditFilter {
  actor?: string;
  resource?: string;
}

/** What a search asks for: the query, an absolute time range, and the menus' choices. */
export interface Filters {
  q: string;
  from: number;
  to: number;
  hosts: string[];
  apps: string[];
  levels: string[];
  tags: string[];
}

export type ContextBy = ContextResponse['by'];

/** A view as the editor sends it to POST or PUT /v1/config/view (channels in the write dialect). */
export type ViewBody = Record<string, unknown>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(body.error);
  }
}

/** A call to the server, described: `send` makes it, and tests read it. */
export interface ApiRequest<T> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
  /** Never set: carries the answer's type. */
  readonly answer?: T;
}

const SESSION = '/api/session';
const SIGNED_OUT = 'logstead:signed-out';

export function filterParams(filters: Filters, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams({ from: String(filters.from), to: String(filters.to), ...extra });
  if (filters.q) params.set('query', filters.q);
  for (const key of ['hosts', 'apps', 'levels', 'tags'] as const) if (filters[key].length) params.set(key, filters[key].join(','));
  return params.toString();
}

/** The search's lines as a JSON Lines download (also the link of the Export menu). */
export const exportUrl = (filters: Filters) => `/v1/export?${filterParams(filters, { size: '10000' })}`;

/** Live tail's WebSocket address, on the page's own host; it speaks the "json" subprotocol. */
export function tailSocketUrl(filters: Pick<Filters, 'q' | 'hosts' | 'apps' | 'levels' | 'tags'>, location: { protocol: string; host: string }): string {
  const params = new URLSearchParams();
  if (filters.q) params.set('q', filters.q);
  for (const name of ['hosts', 'apps', 'levels', 'tags'] as const) if (filters[name].length) params.set(name, filters[name].join(','));
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${location.host}/ws/tail?${params}`;
}
export const TAIL_PROTOCOL = 'json';

/** The path prefixes the server answers under, for the development server's proxy. */
export const SERVER_PREFIXES = ['/v1', '/v2', '/api', '/ws'] as const;

let csrfToken = '';
export const setCsrfToken = (token: string) => {
  csrfToken = token;
};

/** The session ended (signed out elsewhere, or the organisation deactivated): back to sign-in. */
export const announceSignedOut = () => window.dispatchEvent(new Event(SIGNED_OUT));
export function onSignedOut(listener: () => void): () => void {
  window.addEventListener(SIGNED_OUT, listener);
  return () => window.removeEventListener(SIGNED_OUT, listener);
}

/** The fetch options of a request. */
export function requestInit(request: ApiRequest<unknown>, token: string): RequestInit {
  const headers: Record<string, string> = {};
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  // Every call carries the token, not only non-GET ones: an export sent by e-mail is a GET that
  // the server treats as a write.
  if (token) headers['x-csrf-token'] = token;
  return { method: request.method, headers, body: request.body === undefined ? undefined : JSON.stringify(request.body), credentials: 'same-origin' };
}

/** Calls whose 401 means "not these credentials", not "your session ended". */
const SIGNING_IN = [SESSION, '/api/password'];

/** Sends a request; `signal` abandons it (the fetch rejects with an AbortError, and the server may stop its work). */
export async function send<T>(request: ApiRequest<T>, signal?: AbortSignal): Promise<T> {
  const response = await fetch(request.path, { ...requestInit(request, csrfToken), signal });
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!response.ok) {
    if (response.status === 401 && !SIGNING_IN.includes(request.path.split('?')[0])) announceSignedOut();
    throw new ApiError(response.status, (json as ApiErrorBody) ?? { error: text || response.statusText });
  }
  return json as T;
}

const get = <T>(path: string): ApiRequest<T> => ({ method: 'GET', path });
const post = <T>(path: string, body: unknown): ApiRequest<T> => ({ method: 'POST', path, body });
const remove = (path: string): ApiRequest<unknown> => ({ method: 'DELETE', path });
const member = (email: string) => `/v1/config/members/${encodeURIComponent(email)}`;
const group = (groupId: string) => `/v1/config/groups/${encodeURIComponent(groupId)}`;
/** `?widen=true`: the change may let members see every line (the server refuses it otherwise, with 409 naming them). */
const widening = (path: string, widen: boolean) => (widen ? `${path}?widen=true` : path);

/** An API call: call it to send the request, or read the request it sends with `.request`. */
function endpoint<A extends unknown[], T>(build: (...args: A) => ApiRequest<T>) {
  return Object.assign((...args: A) => send(build(...args)), { request: build });
}

export const api = {
  session: endpoint(() => get<Session>(SESSION)),
  signInOptions: endpoint(() => get<SignInOptions>('/api/sign-in')),
  signIn: endpoint((serviceKey: string) => post<Session>(SESSION, { serviceKey })),
  signInWithPassword: endpoint((email: string, password: string) => post<Session>(SESSION, { email, password })),
  signOut: endpoint(() => remove(SESSION)),
  /** "Forgot your password?": the server answers the same whether or not the address is a member. */
  requestPasswordReset: endpoint((email: string) => post<{ status: string; message: string }>('/api/password/reset', { email })),
  passwordLink: endpoint((token: string) => get<PasswordLink>(`/api/password?token=${encodeURIComponent(token)}`)),
  /** Spends a one-time link: sets the password (and, for the owner link, the e-mail) and signs in. */
  choosePassword: endpoint((token: string, password: string, email?: string) => post<Session>('/api/password', { token, password, ...(email === undefined ? {} : { email }) })),

  members: endpoint(() => get<Member[]>('/v1/config/members')),
  inviteMember: endpoint((invite: { email: string; role: Role; groups: string[] }) => post<InvitedMember>('/v1/config/members', invite)),
  updateMember: endpoint((email: string, change: { role?: Role; groups?: string[] }, widen: boolean = false): ApiRequest<Member> => ({ method: 'PUT', path: widening(member(email), widen), body: change })),
  removeMember: endpoint((email: string) => remove(member(email))),
  groups: endpoint(() => get<Group[]>('/v1/config/groups')),
  /** The answer to a save names what the group admits: the apps and hosts of the last day's lines it lets through. */
  createGroup: endpoint((body: GroupBody) => post<Group>('/v1/config/groups', body)),
  replaceGroup: endpoint((groupId: string, body: GroupBody, widen: boolean = false): ApiRequest<Group> => ({ method: 'PUT', path: widening(group(groupId), widen), body })),
  deleteGroup: endpoint((groupId: string, widen: boolean = false) => remove(widening(group(groupId), widen))),
  /** How many lines of a range match a search, within exact app and host lists when given, as the signed-in person sees them (one bucket). */
  lineCount: endpoint((query: string, from: number, to: number, lists: { apps?: string[]; hosts?: string[] } = {}) => {
    const params = new URLSearchParams({ from: String(from), to: String(to), buckets: '1' });
    if (query) params.set('query', query);
    if (lists.apps?.length) params.set('apps', lists.apps.join(','));
    if (lists.hosts?.length) params.set('hosts', lists.hosts.join(','));
    return get<HistogramResponse>(`/v1/histogram?${params}`);
  }),
  /** A page of the audit trail, newest first; `next` from the previous page asks for the one after. */
  audit: endpoint((filter: AuditFilter, next?: string) => {
    const params = new URLSearchParams({ limit: '50' });
    if (filter.actor) params.set('actor', filter.actor);
    if (filter.resource) params.set('resource', filter.resource);
    if (next) params.set('next', next);
    return get<AuditPage>(`/v1/config/audit?${params}`);
  }),
  keys: endpoint(() => get<KeyInfo[]>('/v1/config/keys')),
  createKey: endpoint((type: KeyInfo['type'], name: string) => post<CreatedKey>(`/v1/config/keys?type=${type}`, { name })),
  revokeKey: endpoint((id: string) => remove(`/v1/config/keys/${encodeURIComponent(id)}`)),
  archiveConfig: endpoint(() => get<ArchiveConfig>('/v1/config/archiving')),
  saveArchiveConfig: endpoint((body: ArchiveConfigBody, replace: boolean): ApiRequest<ArchiveConfig> => ({ method: replace ? 'PUT' : 'POST', path: '/v1/config/archiving', body })),
  endArchiving: endpoint(() => remove('/v1/config/archiving')),
  archiveStatus: endpoint(() => get<ArchiveStatus>('/v1/archive/status?limit=24')),

  /** The newest page of a search's lines, or the page older than `cursor`. */
  page: endpoint((filters: Filters, size: number, cursor?: string) =>
    get<ExportPage>(`/v2/export?${filterParams(filters, { size: String(size), prefer: 'tail', ...(cursor ? { pagination_id: cursor } : {}) })}`),
  ),
  histogram: endpoint((filters: Filters) => get<HistogramResponse>(`/v1/histogram?${filterParams(filters)}&buckets=60`)),
  // Each menu is counted with the other menus' selections applied (the server cross-filters).
  facets: endpoint((filters: Filters) => get<Facets>(`/v1/viewer/facets?${filterParams(filters)}`)),
  /** The fields sidebar: every field of the search's lines, its top `top` values with exact counts, stats for numbers. */
  fields: endpoint((filters: Filters, top = 5) => get<FieldsResponse>(`/v1/viewer/fields?${filterParams(filters, { top: String(top) })}`)),
  /** Lines around `line`: `count` on each side, or (with `side`) only on that side of it. */
  context: endpoint((line: Pick<ExportRecord, '_id' | '_ts'>, by: ContextBy, count: number, side?: 'before' | 'after') =>
    get<ContextResponse>(`/v1/viewer/context?id=${line._id}&ts=${line._ts}&by=${by}&${side ? `${side}=${count}&anchor=${side}` : `before=${count}&after=${count}`}`),
  ),
  /** The search's lines grouped into templates, most lines first, each with its volume in `buckets`. */
  patterns: endpoint((filters: Filters, limit = 100, buckets = 40) => get<PatternsResponse>(`/v1/viewer/patterns?${filterParams(filters, { limit: String(limit), buckets: String(buckets) })}`)),
  emailExport: endpoint((filters: Filters, address: string) => get<unknown>(`${exportUrl(filters)}&email=${encodeURIComponent(address)}`)),

  views: endpoint(() => get<View[]>('/v1/config/view')),
  saveView: endpoint((viewid: string | undefined, body: ViewBody): ApiRequest<SavedView> =>
    viewid ? { method: 'PUT', path: `/v1/config/view/${viewid}`, body } : post<SavedView>('/v1/config/view', body),
  ),
  deleteView: endpoint((viewid: string) => remove(`/v1/config/view/${viewid}`)),
  presets: endpoint(() => get<Preset[]>('/v1/config/presetalert')),
  categories: endpoint(() => get<Array<{ name: string }>>('/v1/config/categories/views')),
  createCategory: endpoint((name: string) => post<unknown>('/v1/config/categories/views', { name })),

  boards: endpoint(() => get<Board[]>('/v1/config/board')),
  board: endpoint((boardId: string) => get<Board>(`/v1/config/board/${encodeURIComponent(boardId)}`)),
  saveBoard: endpoint((boardId: string | undefined, body: BoardInput): ApiRequest<Board> =>
    boardId ? { method: 'PUT', path: `/v1/config/board/${encodeURIComponent(boardId)}`, body } : post<Board>('/v1/config/board', body),
  ),
  deleteBoard: endpoint((boardId: string) => remove(`/v1/config/board/${encodeURIComponent(boardId)}`)),
  boardCategories: endpoint(() => get<Array<{ name: string }>>('/v1/config/categories/boards')),
  createBoardCategory: endpoint((name: string) => post<unknown>('/v1/config/categories/boards', { name })),
  /** A saved graph's series over a range, as the signed-in person sees the lines. */
  graphData: endpoint((boardId: string, graphId: string, from: number, to: number, buckets: number) =>
    get<ChartData>(`/v1/board/${encodeURIComponent(boardId)}/graph/${encodeURIComponent(graphId)}/data?from=${from}&to=${to}&buckets=${buckets}`),
  ),
  /** The series of a graph that is not saved ("chart this", and the graph editor's preview). */
  chart: endpoint((request: ChartRequest) => post<ChartData>('/v1/viewer/chart', request)),

  testChannel: endpoint((channel: Record<string, unknown>, viewid?: string) => post<TestSendResult>('/v1/alerts/test-channel', { channel, ...(viewid ? { viewid } : {}) })),
  backtest: endpoint((rule: BacktestRule) => post<BacktestResponse>('/v1/alerts/backtest', rule)),
  deliveries: endpoint((viewid: string) => get<DeliveryLogEntry[]>(`/v1/alerts/deliveries?viewid=${encodeURIComponent(viewid)}&limit=50`)),

  /** Loads a range's archived lines matching a query back into the store (admins). */
  startRestore: endpoint((from: number, to: number, filters: Pick<Filters, 'q' | 'hosts' | 'apps' | 'levels' | 'tags'>) =>
    post<RestoreStatus>('/v1/archive/restore', { from, to, query: filters.q, hosts: filters.hosts, apps: filters.apps, levels: filters.levels, tags: filters.tags }),
  ),
  restore: endpoint((id: string) => get<RestoreStatus>(`/v1/archive/restore/${encodeURIComponent(id)}`)),
  cancelRestore: endpoint((id: string): ApiRequest<RestoreStatus> => ({ method: 'DELETE', path: `/v1/archive/restore/${encodeURIComponent(id)}` })),

  usage: endpoint((from: number, to: number) => get<UsageReport>(`/v1/usage?from=${from}&to=${to}`)),

  exclusions: endpoint(() => get<ExclusionRule[]>('/v1/config/ingestion/exclusions')),
  /** Creates an exclusion rule (admins). */
  createExclusion: endpoint((rule: Omit<ExclusionRule, 'id'>) => post<ExclusionRule>('/v1/config/ingestion/exclusions', rule)),
  /** Lines kept from the store by exclusion rules, over the last day by default. */
  excludedUsage: endpoint(() => get<ExcludedUsage>('/v1/usage/excluded')),
  ingestionStatus: endpoint(() => get<{ is_ingesting: boolean }>('/v1/config/ingestion/status')),
  parsers: endpoint(() => get<ParserRule[]>('/v1/config/parsers')),
  saveParser: endpoint((id: string | undefined, body: ParserBody): ApiRequest<ParserRule> =>
    id ? { method: 'PUT', path: `/v1/config/parsers/${encodeURIComponent(id)}`, body } : post<ParserRule>('/v1/config/parsers', body),
  ),
  deleteParser: endpoint((id: string) => remove(`/v1/config/parsers/${encodeURIComponent(id)}`)),
  /** Without `lines`, the server tries the organisation's last lines that the apps, hosts and query take. */
  testParser: endpoint((body: Omit<ParserBody, 'name'> & { lines?: string[] }) => post<ParserTestResult>('/v1/config/parsers/test', body)),
};

/** An ingestion exclusion rule, as /v1/config/ingestion/exclusions answers it (Mezmo's shape). */
export interface ExclusionRule {
  id: string;
  title: string;
  active: boolean;
  indexonly: boolean;
  apps: string[];
  hosts: string[];
  query: string;
}

/** GET /v1/usage/excluded: what exclusion rules kept out of the store, in all and per rule. */
export interface ExcludedUsage {
  from: number;
  to: number;
  lines: number;
  bytes: number;
  rules: Array<{ id: string; title: string; active: boolean; lines: number; bytes: number }>;
}

/** POST /v1/alerts/backtest: a view's search and one of its channels, replayed over the last days. */
export interface BacktestRule {
  query: string;
  hosts: string[];
  apps: string[];
  levels: string[];
  tags: string[];
  days: number;
  channel: Record<string, unknown>;
}
