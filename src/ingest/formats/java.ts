import { type ParsedLine, MONTHS, digitsAt, levelWord, setField } from './parsed.js';

/** A Java class name (`java.lang.IllegalStateException`, `com.example.Shop$Inner`) then the end or `: message`. */
const EXCEPTION_LINE = /^(?:Caused by: |Exception in thread "([^"]*)" )?([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+)(?::\s?(.*))?$/;

/** Where a stack trace's first frame starts: `\n\tat ` (Throwable.printStackTrace) or four spaces (some layouts). */
function firstFrame(text: string): number {
  // Most lines are one line: one scan finds that out.
  const newline = text.indexOf('\n');
  if (newline < 0) return -1;
  const tab = text.indexOf('\n\tat ', newline);
  return tab >= 0 ? tab : text.indexOf('\n    at ', newline);
}

/**
 * The exception a line's Java stack trace names, when the line holds one (a logger's record with
 * the trace appended, sent as one line): `exception` and `exception_message` from the line before
 * the first `at` frame, `frame` (that first frame) and `root_cause` (the last `Caused by:`).
 * Sets the fields on `fields`; returns whether there was a trace.
 */
export function readStackTrace(text: string, fields: Record<string, unknown>): boolean {
  const frame = firstFrame(text);
  if (frame < 0) return false;
  const lineStart = text.lastIndexOf('\n', frame - 1) + 1;
  const match = EXCEPTION_LINE.exec(text.slice(lineStart, frame).trimEnd());
  if (!match) return false;
  if (match[1] !== undefined) setField(fields, 'thread', match[1]);
  setField(fields, 'exception', match[2]);
  if (match[3]) setField(fields, 'exception_message', match[3]);
  const frameStart = text.indexOf('at ', frame) + 3;
  const frameEnd = text.indexOf('\n', frameStart);
  setField(fields, 'frame', text.slice(frameStart, frameEnd < 0 ? text.length : frameEnd));
  const cause = text.lastIndexOf('\nCaused by: ');
  if (cause > frame) {
    const causeEnd = text.indexOf('\n', cause + 1);
    const causeMatch = EXCEPTION_LINE.exec(text.slice(cause + 1, causeEnd < 0 ? text.length : causeEnd).trimEnd());
    if (causeMatch) setField(fields, 'root_cause', causeMatch[2]);
  }
  return true;
}

/**
 * A level-and-time prefix line (read by parsePrefix) that carries a Java stack trace becomes a
 * `java` line with the exception's fields; others are returned as they were.
 */
export function withStackTrace(text: string, parsed: ParsedLine | null): ParsedLine | null {
  if (!parsed || parsed.logtype !== null && parsed.logtype !== 'java') return parsed;
  const fields: Record<string, unknown> = parsed.fields ?? {};
  if (!readStackTrace(text, fields)) return parsed;
  return { ...parsed, logtype: 'java', fields };
}

/** A bare stack trace: `java.lang.IllegalStateException: boom` or `Exception in thread "main" ...`, then its frames. */
export function parseBareStackTrace(text: string): ParsedLine | null {
  const fields: Record<string, unknown> = {};
  const frame = firstFrame(text);
  // The exception must be the line's first line.
  if (frame < 0 || text.lastIndexOf('\n', frame - 1) >= 0 || !readStackTrace(text, fields)) return null;
  return { logtype: 'java', fields, level: 'ERROR' };
}

/**
 * Tomcat's default (java.util.logging's OneLineFormatter, catalina.out):
 * `28-Nov-2026 10:00:00.123 SEVERE [main] org.apache.catalina.startup.Catalina.start message`,
 * a stack trace below it kept in the line. The time is local with no zone, so not used.
 */
export function parseTomcat(text: string): ParsedLine | null {
  if (!digitsAt(text, 0, 2) || text[2] !== '-' || MONTHS[text.slice(3, 6)] === undefined || text[6] !== '-' || !digitsAt(text, 7, 4) || text[11] !== ' ') return null;
  if (!digitsAt(text, 12, 2) || text[14] !== ':' || !digitsAt(text, 15, 2) || text[17] !== ':' || !digitsAt(text, 18, 2)) return null;
  const levelStart = text.indexOf(' ', 20) + 1;
  const levelEnd = text.indexOf(' ', levelStart);
  if (levelStart < 21 || levelStart > 25 || levelEnd < 0) return null;
  const word = text.slice(levelStart, levelEnd);
  const level = word === 'CONFIG' ? 'INFO' : levelWord(word);
  if (level === undefined || text[levelEnd + 1] !== '[') return null;
  const threadEnd = text.indexOf('] ', levelEnd + 2);
  if (threadEnd < 0 || threadEnd - levelEnd > 200) return null;
  const fields: Record<string, unknown> = {};
  setField(fields, 'thread', text.slice(levelEnd + 2, threadEnd));
  const sourceEnd = text.indexOf(' ', threadEnd + 2);
  const newline = text.indexOf('\n', threadEnd + 2);
  const firstLineEnd = newline < 0 ? text.length : newline;
  if (sourceEnd > 0 && sourceEnd < firstLineEnd) {
    setField(fields, 'logger', text.slice(threadEnd + 2, sourceEnd));
    fields.message = text.slice(sourceEnd + 1, firstLineEnd);
  } else setField(fields, 'logger', text.slice(threadEnd + 2, firstLineEnd));
  readStackTrace(text, fields);
  return { logtype: 'java', fields, level };
}
