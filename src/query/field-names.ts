import { RESERVED_JSON_KEYS } from '../store/reserved-keys.js';
import { isFieldName, resolveField } from './parser.js';

const RESERVED = new Set(RESERVED_JSON_KEYS);

/**
 * The name the search language finds a stored field by: a path in a line's parsed fields (the
 * `fields` column, where `status` is stored as `_status`) or in its meta. The name given is the
 * one a person would write (`status`, `user.id`, `meta.customer`); null when no name reaches the
 * path: a key with a dot or a character field names cannot hold, or a JSON key that a built-in
 * field's name shadows (a JSON line's own `host` or `size` is searched as the line's host or size).
 */
export function searchName(source: 'fields' | 'meta', path: readonly string[]): string | null {
  if (path.length === 0 || path.some((key) => key === '' || key.includes('.'))) return null;
  const candidates =
    source === 'meta'
      ? [`meta.${path.join('.')}`]
      : [...(path[0].startsWith('_') && RESERVED.has(path[0].slice(1)) ? [[path[0].slice(1), ...path.slice(1)].join('.')] : []), path.join('.')];
  const kind = source === 'meta' ? 'meta' : 'json';
  for (const candidate of candidates) {
    if (!isFieldName(candidate)) continue;
    const field = resolveField(candidate);
    if (field.kind === kind && field.path.length === path.length && field.path.every((key, at) => key === path[at])) return candidate;
  }
  return null;
}
