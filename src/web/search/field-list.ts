import type { FieldSummary, FieldType } from '../api-client/client.js';

/**
 * The fields sidebar's plain reading of GET /v1/viewer/fields: which fields a typed filter keeps,
 * shares as percentages, and numbers short enough for a narrow column.
 */

/** A short mark for each type, as Kibana's field list shows one. */
export const TYPE_MARK: Record<FieldType, string> = { string: 'abc', number: '#', boolean: 't/f' };

/** The fields whose names hold the typed text (any case); all of them for none. */
export function findFields(fields: FieldSummary[], typed: string): FieldSummary[] {
  const text = typed.trim().toLowerCase();
  return text ? fields.filter((field) => field.name.toLowerCase().includes(text)) : fields;
}

/** The fields list's header count: all of them, or how many a typed filter lists of them ("1 of 10"). */
export const fieldCountText = (listed: number, all: number): string => (listed === all ? all.toLocaleString('en') : `${listed.toLocaleString('en')} of ${all.toLocaleString('en')}`);

/** `part` of `whole` as a percentage for a share bar, 0 to 100. */
export const sharePercent = (part: number, whole: number): number => (whole > 0 ? Math.min(100, (part / whole) * 100) : 0);

/** A share as people read it: `100%`, `42%`, `0.4%`, `<0.1%`. */
export function shareText(part: number, whole: number): string {
  const percent = sharePercent(part, whole);
  if (part > 0 && percent < 0.1) return '<0.1%';
  return `${percent >= 10 || Number.isInteger(percent) ? Math.round(percent) : percent.toFixed(1)}%`;
}

/** A stat in at most a few characters: whole numbers grouped, fractions to three significant digits. */
export function statText(value: number): string {
  if (Number.isInteger(value)) return value.toLocaleString('en');
  return Number(value.toPrecision(3)).toLocaleString('en', { maximumSignificantDigits: 3 });
}
