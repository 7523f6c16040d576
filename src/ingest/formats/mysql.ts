import { type ParsedLine, digitsAt, isDigit, setField } from './parsed.js';

/** MySQL's and MariaDB's error-log priorities. */
const PRIORITIES: Record<string, string> = { System: 'INFO', Note: 'NOTICE', Warning: 'WARN', Warn: 'WARN', Error: 'ERROR', ERROR: 'ERROR' };

/**
 * Where MariaDB's local time ends when its hour has one digit: MariaDB pads it with a space
 * (`2026-11-29  0:27:34`, two spaces after the date), which is no ISO time, so from midnight to 10
 * a.m. its error log would not be read as one. -1 when the line does not start so.
 */
export function mariadbPaddedTimeEnd(text: string): number {
  const date = digitsAt(text, 0, 4) && text[4] === '-' && digitsAt(text, 5, 2) && text[7] === '-' && digitsAt(text, 8, 2);
  const time = text[10] === ' ' && text[11] === ' ' && isDigit(text.charCodeAt(12)) && text[13] === ':' && digitsAt(text, 14, 2) && text[16] === ':' && digitsAt(text, 17, 2);
  return date && time ? 19 : -1;
}

/**
 * The MySQL and MariaDB error log: MariaDB's `2026-11-28 10:00:00 0 [Note] InnoDB: ...` and MySQL
 * 8's `2026-11-28T10:00:00.123456Z 0 [System] [MY-010116] [Server] /usr/sbin/mysqld ...` (5.7 has
 * no code or subsystem). `timeEnd` is where the ISO time (read by the caller) ends and `ms` the
 * time when it named its zone (MySQL's log_timestamps=UTC writes a Z; MariaDB writes local time).
 */
export function parseMysql(text: string, timeEnd: number, ms: number | undefined): ParsedLine | null {
  if (text[timeEnd] !== ' ') return null;
  let threadEnd = timeEnd + 1;
  while (isDigit(text.charCodeAt(threadEnd))) threadEnd++;
  if (threadEnd === timeEnd + 1 || text[threadEnd] !== ' ' || text[threadEnd + 1] !== '[') return null;
  const priorityEnd = text.indexOf('] ', threadEnd + 2);
  if (priorityEnd < 0 || priorityEnd - threadEnd > 10) return null;
  const level = PRIORITIES[text.slice(threadEnd + 2, priorityEnd)];
  if (level === undefined) return null;
  const fields: Record<string, unknown> = {};
  setField(fields, 'thread_id', +text.slice(timeEnd + 1, threadEnd));
  let index = priorityEnd + 2;
  // MySQL 8: [MY-010116] [Server]
  if (text.startsWith('[MY-', index)) {
    const codeEnd = text.indexOf('] ', index);
    if (codeEnd > 0 && codeEnd - index < 16) {
      setField(fields, 'error_code', text.slice(index + 1, codeEnd));
      index = codeEnd + 2;
      if (text[index] === '[') {
        const subsystemEnd = text.indexOf('] ', index);
        if (subsystemEnd > 0 && subsystemEnd - index < 24) {
          setField(fields, 'subsystem', text.slice(index + 1, subsystemEnd));
          index = subsystemEnd + 2;
        }
      }
    }
  }
  const newline = text.indexOf('\n', index);
  fields.message = text.slice(index, newline < 0 ? text.length : newline);
  return { logtype: 'mysql', fields, level, ts: ms };
}
