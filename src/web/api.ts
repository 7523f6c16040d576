/** The viewer talks to the same APIs as every other client, with its session cookie. */

import type { ApiErrorBody } from '../wire/types.js';

// The answers' types are the server's own (src/wire/types.ts); the viewer's names for them stay.
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
  HistogramBucket,
  HistogramResponse,
  MetaUnindexedReason,
  Preset,
  SavedView,
  TestSendResult,
  ValidationDetail,
  View,
  ViewWarning,
} from '../wire/types.js';

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
