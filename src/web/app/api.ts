/** The viewer talks to the same APIs as every other client, with its session cookie. */

export interface LogLine {
  _id: string;
  _ts: number;
  timestamp: string;
  _line: string;
  _app: string;
  _host: string;
  _file?: string;
  level: string;
  tags?: string[];
  meta?: unknown;
  [field: string]: unknown;
}

export interface ApiErrorBody {
  error: string;
  code?: string;
  position?: number;
  expected?: string;
  details?: Array<{ message: string; key: string }>;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(body.error);
  }
}

let csrfToken = '';
export const setCsrfToken = (token: string) => {
  csrfToken = token;
};

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  // Every call carries the token, not only non-GET ones: an export sent by e-mail is a GET that
  // the server treats as a write.
  if (csrfToken) headers['x-csrf-token'] = csrfToken;
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' });
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!response.ok) {
    // The session ended (signed out elsewhere, or the organisation deactivated): back to sign-in.
    if (response.status === 401 && path !== '/api/session') window.dispatchEvent(new Event('logstead:signed-out'));
    throw new ApiError(response.status, (json as ApiErrorBody) ?? { error: text || response.statusText });
  }
  return json as T;
}

export interface Filters {
  q: string;
  from: number;
  to: number;
  hosts: string[];
  apps: string[];
  levels: string[];
  tags: string[];
}

export function filterParams(filters: Filters, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams({ from: String(filters.from), to: String(filters.to), ...extra });
  if (filters.q) params.set('query', filters.q);
  for (const key of ['hosts', 'apps', 'levels', 'tags'] as const) if (filters[key].length) params.set(key, filters[key].join(','));
  return params.toString();
}

export interface Page {
  lines: LogLine[];
  pagination_id: string | null;
}

export interface HistogramBucket {
  ts: number;
  count: number;
  levels: Record<string, number>;
}

export type Facets = Record<'host' | 'app' | 'level' | 'tag', Array<{ value: string; count: number }>>;

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
}

export interface View {
  viewid: string;
  name: string;
  query: string;
  hosts: string[];
  apps: string[];
  levels: string[];
  tags: string[];
  description?: string;
  category: string[];
  presetids: string[];
  channels: Channel[];
}

export interface Preset {
  presetid: string;
  name: string;
  channels: Channel[];
}
