import { LIMITS } from '../wire/limits.js';
import { clip, label } from './text.js';

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

/** How many distinct given levels are remembered; past this the memory starts over. */
const REMEMBERED_LEVELS = 256;
const givenLevels = new Map<string, string>();

/**
 * A line's level: the one given with it (a JSON line's `level`, else its `level` field), as text,
 * upper-cased and cut to the limit; when none is given, the level its text names ('' if none).
 * Clients repeat a handful of levels on every line, so a given string is cased once and
 * remembered: upper-casing allocated a new string for every line.
 */
export function lineLevel(given: unknown, line: string): string {
  if (typeof given === 'string') {
    const known = givenLevels.get(given);
    if (known !== undefined) return known;
  }
  // Cut before and after upper-casing: a few characters (ß) grow when upper-cased.
  const level = clip(label(given, LIMITS.level).toUpperCase(), LIMITS.level);
  if (level === '') return clip(detectLevel(line), LIMITS.level);
  if (typeof given === 'string' && given.length <= LIMITS.level) {
    if (givenLevels.size >= REMEMBERED_LEVELS) givenLevels.clear();
    givenLevels.set(given, level);
  }
  return level;
}
