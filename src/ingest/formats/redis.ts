import { type ParsedLine, MONTHS, digitsAt, isDigit, setField } from './parsed.js';

const ROLES: Record<string, string> = { M: 'master', S: 'replica', C: 'child', X: 'sentinel' };
/** Redis's level marks: `.` debug, `-` verbose, `*` notice, `#` warning. */
const MARKS: Record<string, string> = { '.': 'DEBUG', '-': 'DEBUG', '*': 'NOTICE', '#': 'WARN' };

/**
 * A Redis log line (3.0 on): `1234:M 28 Nov 2026 10:00:00.123 * Ready to accept connections`, the
 * process, its role (master, replica, child or sentinel), the time (local, with no zone, so not
 * used) and the level's mark. `pidEnd` is the index of the `:` after the process id.
 */
export function parseRedis(text: string, pidEnd: number): ParsedLine | null {
  const role = ROLES[text[pidEnd + 1]];
  if (role === undefined || text[pidEnd + 2] !== ' ') return null;
  // "28 Nov 2026 10:00:00.123 " (a day may be one digit)
  let index = pidEnd + 3;
  const dayEnd = isDigit(text.charCodeAt(index + 1)) ? index + 2 : index + 1;
  if (!isDigit(text.charCodeAt(index)) || text[dayEnd] !== ' ' || MONTHS[text.slice(dayEnd + 1, dayEnd + 4)] === undefined) return null;
  index = dayEnd + 5;
  if (!digitsAt(text, index, 4) || text[index + 4] !== ' ' || !digitsAt(text, index + 5, 2) || text[index + 7] !== ':' || !digitsAt(text, index + 8, 2) || text[index + 10] !== ':' || !digitsAt(text, index + 11, 2)) return null;
  index += 13;
  if (text[index] === '.') {
    index++;
    while (isDigit(text.charCodeAt(index))) index++;
  }
  const level = MARKS[text[index + 1]];
  if (text[index] !== ' ' || level === undefined || text[index + 2] !== ' ') return null;
  const fields: Record<string, unknown> = {};
  setField(fields, 'pid', +text.slice(0, pidEnd));
  setField(fields, 'role', role);
  const newline = text.indexOf('\n', index + 3);
  fields.message = text.slice(index + 3, newline < 0 ? text.length : newline);
  return { logtype: 'redis', fields, level };
}
