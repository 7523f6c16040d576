/**
 * A client value as text. Lone surrogates (invalid UTF-16, possible in JSON's \u escapes) become
 * U+FFFD: the store cannot hold them, and one would fail every request sharing its insert.
 */
export function text(value: unknown): string {
  if (typeof value === 'string') return value.toWellFormed();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

/** Cuts to at most `max` UTF-16 units without splitting a surrogate pair. */
export function clip(value: string, max: number): string {
  if (value.length <= max) return value;
  const code = value.charCodeAt(max - 1);
  return value.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** A label (app, env, file, ...) as text cut to `max` characters; cut first, so a huge value is never copied whole. */
export function label(value: unknown, max: number): string {
  return clip(text(typeof value === 'string' ? clip(value, max) : value), max);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
