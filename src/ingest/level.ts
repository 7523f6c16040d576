/** Level words recognised in line text (Mezmo's list, plus common spellings folded onto it). */
const LEVEL_IN_TEXT =
  /\b(EMERGENCY|EMERG|ALERT|CRITICAL|CRIT|FATAL|SEVERE|ERROR|ERR|WARNING|WARN|INFO|DEBUG|TRACE)\b/i;

const CANONICAL: Record<string, string> = { EMERG: 'EMERGENCY', CRIT: 'CRITICAL', ERR: 'ERROR', WARNING: 'WARN' };

/** Only the start of a line is looked at: levels sit near the front, and long lines stay cheap. */
const SCAN_CHARS = 200;

/** The level named in a line's text, upper-cased, or '' when none is found. */
export function detectLevel(text: string): string {
  const match = LEVEL_IN_TEXT.exec(text.length > SCAN_CHARS ? text.slice(0, SCAN_CHARS) : text);
  if (!match) return '';
  const word = match[1].toUpperCase();
  return CANONICAL[word] ?? word;
}
