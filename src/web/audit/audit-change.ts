/**
 * An audit record's before and after, as rows a person can read: a created resource lists what
 * it was created with, a deleted one what it held, and a change only the fields that changed.
 */

export interface ChangeRow {
  /** A field's path (`channels`, `meta.owner`), or '' when the value is not an object. */
  field: string;
  /** Undefined where the field did not exist. */
  before?: string;
  after?: string;
}

/** Fields every write touches: listing them would bury the change itself. */
const BOOKKEEPING = new Set(['created', 'modified', 'updated', 'created_at', 'modified_at', 'updated_at']);
const LONGEST = 240;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A value in a line: text as it is, anything else as compact JSON, cut short when long. */
export function valueText(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  return text.length > LONGEST ? `${text.slice(0, LONGEST - 1)}…` : text;
}

/** Fields of an object with nested objects opened as dotted paths (arrays stay whole: a list reads best as one value). */
function flatten(value: Record<string, unknown>, prefix = ''): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [name, field] of Object.entries(value)) {
    if (!prefix && BOOKKEEPING.has(name)) continue;
    const path = prefix ? `${prefix}.${name}` : name;
    if (isRecord(field) && Object.keys(field).length > 0) for (const [inner, innerValue] of flatten(field, path)) out.set(inner, innerValue);
    else out.set(path, field);
  }
  return out;
}

export function changeRows(before: unknown, after: unknown): ChangeRow[] {
  const absent = (value: unknown) => value === null || value === undefined;
  if (absent(before) && absent(after)) return [];
  if (!(isRecord(before) || absent(before)) || !(isRecord(after) || absent(after))) {
    // A value that is not an object (a plain answer, or text): shown whole, before and after.
    if (JSON.stringify(before) === JSON.stringify(after)) return [];
    return [{ field: '', ...(absent(before) ? {} : { before: valueText(before) }), ...(absent(after) ? {} : { after: valueText(after) }) }];
  }
  const old = absent(before) ? new Map<string, unknown>() : flatten(before as Record<string, unknown>);
  const now = absent(after) ? new Map<string, unknown>() : flatten(after as Record<string, unknown>);
  const rows: ChangeRow[] = [];
  for (const field of new Set([...old.keys(), ...now.keys()])) {
    const was = old.get(field);
    const is = now.get(field);
    if (JSON.stringify(was) === JSON.stringify(is)) continue;
    rows.push({ field, ...(old.has(field) ? { before: valueText(was) } : {}), ...(now.has(field) ? { after: valueText(is) } : {}) });
  }
  return rows;
}

/** `member.update` as "updated member", `session.sign-in-failed` as "sign-in failed (session)": the action in words. */
export function actionText(action: string): string {
  const [resource, verb = ''] = action.split(/\.(.*)/s);
  const words: Record<string, string> = { create: 'created', update: 'updated', delete: 'deleted' };
  if (words[verb]) return `${words[verb]} ${resource}`;
  return `${verb.replace(/-/g, ' ')} (${resource})`;
}
