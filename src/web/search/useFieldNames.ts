import { useMemo, useRef } from 'react';
import type { LogLine } from '../api-client/client.js';
import { BUILTIN_FIELDS, collectFields } from './line-fields.js';

/** Field names seen in any results this session: the columns offered and the names hints know. */
export function useFieldNames(lines: LogLine[]): Set<string> {
  const seen = useRef({ names: new Set<string>(BUILTIN_FIELDS), read: new WeakSet<LogLine>() });
  return useMemo(() => {
    collectFields(lines, seen.current.names, seen.current.read);
    return new Set(seen.current.names);
  }, [lines]);
}
