import type { Filters } from './api.js';

/** The whole search lives in the URL, so a search can be shared and reloaded. */
export interface ViewerState extends Filters {
  /** A preset such as "1h", or "custom" with from/to. */
  range: string;
  view: string;
  live: boolean;
}

export const RANGES: Array<{ key: string; label: string; ms: number }> = [
  { key: '15m', label: 'Last 15 minutes', ms: 15 * 60_000 },
  { key: '1h', label: 'Last hour', ms: 3_600_000 },
  { key: '24h', label: 'Last 24 hours', ms: 24 * 3_600_000 },
  { key: '7d', label: 'Last 7 days', ms: 7 * 24 * 3_600_000 },
];

const list = (value: string | null) => (value ? value.split(',').filter(Boolean) : []);

export function readState(search = window.location.search): ViewerState {
  const params = new URLSearchParams(search);
  let range = params.get('range') ?? (params.get('from') ? 'custom' : '1h');
  const live = params.get('live') === '1';
  // An unknown range reads as the default; live tail always follows the present.
  if (range !== 'custom' && !RANGES.some((known) => known.key === range)) range = '1h';
  if (live && range === 'custom') range = '1h';
  return {
    q: params.get('q') ?? '',
    range,
    from: Number(params.get('from')) || 0,
    to: Number(params.get('to')) || 0,
    hosts: list(params.get('hosts')),
    apps: list(params.get('apps')),
    levels: list(params.get('levels')),
    tags: list(params.get('tags')),
    view: params.get('view') ?? '',
    live,
  };
}

export function writeState(state: ViewerState): void {
  const params = new URLSearchParams();
  if (state.q) params.set('q', state.q);
  if (state.range === 'custom') {
    params.set('from', String(state.from));
    params.set('to', String(state.to));
  } else {
    params.set('range', state.range);
  }
  for (const key of ['hosts', 'apps', 'levels', 'tags'] as const) if (state[key].length) params.set(key, state[key].join(','));
  if (state.view) params.set('view', state.view);
  if (state.live) params.set('live', '1');
  const next = `${window.location.pathname}?${params}`;
  if (next !== `${window.location.pathname}${window.location.search}`) window.history.pushState(null, '', next);
}

/** The absolute time range a state stands for, now. */
export function timeRange(state: ViewerState, now = Date.now()): { from: number; to: number } {
  if (state.range === 'custom' && state.from && state.to) return { from: state.from, to: state.to };
  const preset = RANGES.find((range) => range.key === state.range) ?? RANGES[1];
  return { from: now - preset.ms, to: now };
}

export function toFilters(state: ViewerState, now = Date.now()): Filters {
  return { q: state.q, ...timeRange(state, now), hosts: state.hosts, apps: state.apps, levels: state.levels, tags: state.tags };
}
