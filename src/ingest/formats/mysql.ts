import { type ParsedLine, isDigit, setField } from './parsed.js';

/** MySQL's and MariaDB's error-log priorities. */
const PRIORITIES: Record<string, string> = { System: 'INFO', Note: 'NOTICE', Warning: 'WARN', Warn: 'WARN', Error: 'ERROR', ERROR: 'ERROR' };

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
