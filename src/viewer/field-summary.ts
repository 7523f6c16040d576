import { searchName } from '../query/field-names.js';
import type { StoredField, StoredFieldStats } from '../store/field-stats.js';
import type { FieldSummary, FieldType, FieldsResponse } from '../wire/types.js';

/** The built-in fields in the order the sidebar lists them, before the stored ones. */
const BUILTIN_ORDER = ['host', 'app', 'level', 'tag', 'file', 'env'];

/**
 * A field's type: the type of most of the lines that hold a value (a JSON null holds none). A
 * field with numbers on some lines and text on others is a number when more than half of those
 * lines hold a number (nginx's `upstream_response_time` is `-` where no upstream answered), and
 * text otherwise; its stats are over its numeric values only. A tie is text.
 */
export function fieldType(field: Pick<StoredField, 'lines' | 'numbers' | 'booleans' | 'nulls'>): FieldType {
  const valued = field.lines - field.nulls;
  if (field.numbers * 2 > valued) return 'number';
  if (field.booleans * 2 > valued) return 'boolean';
  return 'string';
}

/** A stored value's text as search takes it: a JSON string's content; a number, boolean, null, object or array as written. */
function valueText(field: StoredField, raw: string): string {
  if (field.source === 'builtin' || !raw.startsWith('"')) return raw;
  try {
    return JSON.parse(raw) as string;
  } catch {
    return raw;
  }
}

/**
 * Top values by their text. The number 200 and the text "200" are one value to search
 * (`status:200` finds both), so their counts are added.
 */
function topValues(field: StoredField, top: number): FieldSummary['top'] {
  const merged = new Map<string, number>();
  for (const { raw, lines } of field.top) {
    const text = valueText(field, raw);
    merged.set(text, (merged.get(text) ?? 0) + lines);
  }
  return [...merged]
    .map(([value, lines]) => ({ value, lines }))
    .sort((a, b) => b.lines - a.lines || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
    .slice(0, top);
}

/** The store's fields named as search names them; a field that no name reaches is left out, as search cannot use it. */
export function summarizeFields(stored: StoredFieldStats, top: number): FieldsResponse {
  const fields: FieldSummary[] = [];
  const builtins = stored.fields.filter((field) => field.source === 'builtin').sort((a, b) => BUILTIN_ORDER.indexOf(a.path[0]) - BUILTIN_ORDER.indexOf(b.path[0]));
  for (const field of builtins) fields.push({ name: field.path[0], type: 'string', lines: field.lines, top: topValues(field, top) });
  const others = stored.fields.filter((field) => field.source !== 'builtin');
  others.sort((a, b) => b.lines - a.lines || (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
  for (const field of others) {
    const name = searchName(field.source as 'fields' | 'meta', field.path);
    if (name === null) continue;
    const type = fieldType(field);
    fields.push({ name, type, lines: field.lines, top: topValues(field, top), ...(type === 'number' && field.stats ? { stats: field.stats } : {}) });
  }
  return { lines: stored.lines, fields };
}
