import { RANGES } from '../search/url-state.js';

/** A board's time range, shared by its graphs and kept in its address (`?range=24h`, or `?from=&to=` after a zoom). */
export interface BoardRange {
  range: string;
  from: number;
  to: number;
}

export const DEFAULT_BOARD_RANGE = '24h';

const isTime = (value: string | null) => value !== null && /^\d+$/.test(value);

export function readBoardRange(search: string): BoardRange {
  const params = new URLSearchParams(search);
  const from = params.get('from');
  const to = params.get('to');
  if (isTime(from) && isTime(to) && Number(from) <= Number(to)) return { range: 'custom', from: Number(from), to: Number(to) };
  const range = params.get('range');
  return { range: range && RANGES.some((known) => known.key === range) ? range : DEFAULT_BOARD_RANGE, from: 0, to: 0 };
}

export function boardRangeSearch(range: BoardRange): string {
  return range.range === 'custom' ? `?from=${range.from}&to=${range.to}` : range.range === DEFAULT_BOARD_RANGE ? '' : `?range=${range.range}`;
}

/** The absolute range a board shows now. */
export function absoluteRange(range: BoardRange, now: number): { from: number; to: number } {
  if (range.range === 'custom') return { from: range.from, to: range.to };
  const preset = RANGES.find((known) => known.key === range.range) ?? RANGES[2];
  return { from: now - preset.ms, to: now };
}
