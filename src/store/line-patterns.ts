import type { SqlExecutor, SqlParams } from './executor.js';
import { sqlString } from './tables.js';

/**
 * The engine's half of log patterns (GET /v1/viewer/patterns; the clustering is in
 * src/viewer/patterns): each line's text with its variable parts masked as `<*>` by RE2 (linear
 * in the line), and the lines grouped by that masked text with exact counts, in one scan that
 * masks each line once. The clustering then sees each distinct masked text once, with its count,
 * instead of every line.
 */

/**
 * What masking replaces with `<*>`, tried in this order at each place in the line (RE2 takes the
 * first alternative that matches where a match starts first):
 * - a UUID; a date, with its time and zone when given; an access log's date with its time and zone
 *   (`28/Nov/2026:10:00:00 +0000`: its month's name left in would split an access log's pattern in
 *   two at each month's start, the second marked new); a syslog date with its time (`Nov 28
 *   22:48:37`, RFC 3164's, for the same reason); a time of day;
 * - an e-mail address; an IPv4 address with its port; a MAC or a full IPv6 address;
 * - a hex number (`0x1f`); a duration (`12ms`, `1.5s`, `1h30m`); a size (`12KB`, `3MiB`);
 * - a run of 8 or more hex digits (ids, hashes); any other number (`42`, `3.5`).
 * Each stands alone (`\b`): `user_42` and `v2` stay as they are, for Drain to tell apart by
 * token. URLs and paths are kept: their words are what a person looks for.
 */
export const MASK_ALTERNATIVES: readonly string[] = [
  String.raw`\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b`,
  String.raw`\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?`,
  String.raw`\b\d{1,2}/(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)/\d{4}(?::\d{2}:\d{2}:\d{2}(?: [+-]\d{4})?)?`,
  String.raw`\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) {1,2}\d{1,2} \d{2}:\d{2}:\d{2}\b`,
  String.raw`\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b`,
  String.raw`\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b`,
  String.raw`\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b`,
  String.raw`\b(?:[0-9a-fA-F]{1,4}:){2,7}[0-9a-fA-F]{1,4}\b`,
  String.raw`\b0[xX][0-9a-fA-F]+\b`,
  String.raw`\b(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h|d))+\b`,
  String.raw`\b\d+(?:\.\d+)?(?:[kKMGTP]i?[bB]|[bB])\b`,
  String.raw`\b[0-9a-fA-F]{8,}\b`,
  String.raw`\b\d+(?:\.\d+)?\b`,
];

/**
 * A quoted value after `=` (`msg="a b"`, `user='x'`), masked whole in a second pass (the `=`
 * kept), after the first has masked what it holds. Two passes without capture groups, not one
 * with a group to keep the `=`: RE2 finds a match's span without captures by its DFA, and over
 * 300,000 lines the two passes took a third of the time of the one (bench/analysis).
 */
export const QUOTED_VALUE = String.raw`=(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')`;

/**
 * Only a line's first this many characters are masked and clustered (cut back to the last space,
 * the cut token and the rest becoming one `<*>`): the work per line stays bounded, and a template
 * of a longer line says nothing of its end.
 */
export const MASKED_CHARACTERS = 1024;

/**
 * The second pass only over a text that holds `="` or `='`, which every quoted value starts with:
 * most lines hold neither, and the engine evaluates only the branch of `if` each row takes.
 */
const mask = (text: string) => {
  const first = `replaceRegexpAll(${text}, ${sqlString(MASK_ALTERNATIVES.join('|'))}, '<*>')`;
  return `if(position(${text}, '="') > 0 OR position(${text}, '=\\'') > 0, replaceRegexpAll(${first}, ${sqlString(QUOTED_VALUE)}, '=<*>'), ${first})`;
};
/** A line's masked text (the SQL twin of nothing: only the engine masks). */
export const MASKED_LINE = `if(lengthUTF8(line) <= ${MASKED_CHARACTERS}, ${mask('line')},
  concat(${mask(`replaceRegexpOne(leftUTF8(line, ${MASKED_CHARACTERS}), '[^ ]*$', '')`)}, '<*>'))`;

/** One group of lines with the same masked text (or, past the limits, the same coarser key). */
export interface PatternGroup {
  text: string;
  lines: number;
  /** Unix ms of the group's first and last line. */
  firstMs: number;
  lastMs: number;
  /** The first line's id (with firstMs, its position): the example fetched later. */
  firstId: string;
  /** Lines per bucket of the range: [bucket index, lines], non-empty buckets only. */
  volume: Array<[number, number]>;
}

export interface PatternGroupOptions {
  /** The range is cut in buckets of this many ms from its start, for each group's volume. */
  bucketMs: number;
  /**
   * The most frequent this many masked texts are kept as they are; rarer ones are merged by
   * their length and first token, the most frequent `maxCoarse` of those are kept, and rarer ones
   * again by their length alone. So the clustering sees a bounded number of texts, and every line
   * is still counted in exactly one group.
   */
  maxGroups: number;
  maxCoarse: number;
}

/** The WHERE clause selecting a filter's lines (LogStore's, with its parameters) and the table read. */
export interface Selection {
  table: string;
  where: string[];
  params: SqlParams;
}

/**
 * Past this much memory a grouping spills to disk: a day of lines whose messages all differ has
 * as many masked texts as lines, and the embedded engine shares the server's process.
 */
const GROUP_BY_MEMORY_BYTES = 512 * 1024 * 1024;

/** A whole number for an aggregate function's parameter, which cannot be bound. */
const literalCount = (value: number) => Math.max(0, Math.min(1_000_000, Math.floor(value)));

/** How a group's text is made from its first line's masked text: kept, first token kept, or none. */
const enum Level {
  Exact = 0,
  FirstToken = 1,
  Length = 2,
}

/**
 * The grouping, in one scan of the lines that masks each once. Texts are keyed by a 64-bit hash
 * of the masked text (`text_key`), of its first token and number of tokens (`first_key`), and by
 * that number alone, and carried as no text at all: over lines that nearly all differ, the texts
 * would be as large as the lines. `texts` (one row per masked text and bucket) is materialized,
 * so the ranking of texts and the final grouping read it and not the lines again. The most
 * frequent texts (ties: the smaller hash) are picked with groupArraySorted, which needs no sort
 * of every text. Each line's count goes to exactly one final group: its text's when that text is
 * among the kept ones, else its first token's when that is, else its length's.
 */
function groupingSql(selection: Selection, options: PatternGroupOptions): string {
  return `WITH
  texts AS MATERIALIZED (
    SELECT text_key, toUInt32(intDiv(toUnixTimestamp64Milli(ts) - {fromMs:Int64}, {bucketMs:Int64})) AS bucket,
        any(first_key) AS first_key, any(tokens) AS tokens, count() AS c, min((ts, id)) AS first_at, max(ts) AS last_ts
      FROM (SELECT cityHash64(masked) AS text_key, countSubstrings(masked, ' ') + 1 AS tokens,
              cityHash64(substringIndex(masked, ' ', 1), tokens) AS first_key, ts, id
            FROM (SELECT ${MASKED_LINE} AS masked, ts, id FROM ${selection.table} WHERE ${selection.where.join(' AND ')}))
      GROUP BY text_key, bucket),
  text_counts AS MATERIALIZED (SELECT text_key, any(first_key) AS first_key, sum(c) AS c FROM texts GROUP BY text_key),
  kept_texts AS (SELECT tupleElement(arrayJoin(groupArraySorted(${literalCount(options.maxGroups)})((-toInt64(c), text_key))), 2) AS text_key FROM text_counts),
  kept_firsts AS (
    SELECT tupleElement(arrayJoin(groupArraySorted(${literalCount(options.maxCoarse)})((-toInt64(c), first_key))), 2) AS first_key
      FROM (SELECT first_key, sum(c) AS c FROM text_counts WHERE text_key NOT IN kept_texts GROUP BY first_key))
SELECT level, group_key, sum(c) AS lines, toUnixTimestamp64Milli(tupleElement(min(first_at), 1)) AS first_ms,
    toString(tupleElement(min(first_at), 2)) AS first_id, toUnixTimestamp64Milli(max(last_ts)) AS last_ms,
    tupleElement(sumMap([bucket], [c]), 1) AS buckets, tupleElement(sumMap([bucket], [c]), 2) AS counts
  FROM (SELECT multiIf(text_key IN kept_texts, ${Level.Exact}, first_key IN kept_firsts, ${Level.FirstToken}, ${Level.Length}) AS level,
          multiIf(level = ${Level.Exact}, text_key, level = ${Level.FirstToken}, first_key, toUInt64(tokens)) AS group_key, bucket, c, first_at, last_ts
        FROM texts)
  GROUP BY level, group_key
  SETTINGS enable_materialized_cte = 1, max_bytes_before_external_group_by = ${GROUP_BY_MEMORY_BYTES}, output_format_json_quote_64bit_integers = 1`;
}

/** A group's text from its first line's masked text, at its level (split at single spaces, as Drain splits). */
function levelText(masked: string, level: Level): string {
  if (level === Level.Exact) return masked;
  return masked
    .split(' ')
    .map((token, at) => (level === Level.FirstToken && at === 0 ? token : '<*>'))
    .join(' ');
}

/** Byte order of UTF-8 text (as the engine orders strings), for an order that never depends on the engine's. */
const byText = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * A filter's lines grouped by masked text: each group's count, first and last time, first line's
 * position and volume per bucket. Ordered by count, then text, so the same lines give the same
 * groups in the same order, whatever order they were stored in. Two queries: the grouping, which
 * carries hashes only, then the masked text of each group's first line (a few thousand lines,
 * read by their position).
 */
export async function patternGroups(executor: SqlExecutor, selection: Selection, options: PatternGroupOptions): Promise<PatternGroup[]> {
  const params: SqlParams = { ...selection.params, bucketMs: options.bucketMs };
  const rows = await executor.rows<{ level: number; lines: string; first_ms: string; first_id: string; last_ms: string; buckets: number[]; counts: string[] }>(
    groupingSql(selection, options),
    params,
    // Every selected line is masked: apart, so that inserts and searches go on beside it.
    { apart: true },
  );
  const masked = await linesAt(executor, selection, rows.map((row) => ({ ts: Number(row.first_ms), id: row.first_id })), MASKED_LINE);
  // Texts that two levels share (a text `a <*>` and the first-token group `a <*>`) are one group.
  const byKey = new Map<string, PatternGroup>();
  for (const row of rows) {
    const text = levelText(masked.get(`${row.first_ms}:${row.first_id}`) ?? '', Number(row.level) as Level);
    const group: PatternGroup = {
      text,
      lines: Number(row.lines),
      firstMs: Number(row.first_ms),
      lastMs: Number(row.last_ms),
      firstId: row.first_id,
      volume: row.buckets.map((bucket, at) => [Number(bucket), Number(row.counts[at])]),
    };
    const known = byKey.get(text);
    byKey.set(text, known ? mergeGroups(known, group) : group);
  }
  return [...byKey.values()].sort((a, b) => b.lines - a.lines || byText(a.text, b.text));
}

/** Two groups of the same text as one: counts and volumes added, the earlier first line kept. */
function mergeGroups(a: PatternGroup, b: PatternGroup): PatternGroup {
  const volume = new Map(a.volume);
  for (const [bucket, lines] of b.volume) volume.set(bucket, (volume.get(bucket) ?? 0) + lines);
  const aFirst = a.firstMs < b.firstMs || (a.firstMs === b.firstMs && BigInt(a.firstId) < BigInt(b.firstId));
  return {
    text: a.text,
    lines: a.lines + b.lines,
    firstMs: aFirst ? a.firstMs : b.firstMs,
    firstId: aFirst ? a.firstId : b.firstId,
    lastMs: Math.max(a.lastMs, b.lastMs),
    volume: [...volume].sort((x, y) => x[0] - y[0]),
  };
}

/**
 * The text of the lines at these positions among a selection's lines (the selection again, so a
 * line outside it is never returned), by "ts:id": the line itself, or `column` made of it.
 */
export async function linesAt(executor: SqlExecutor, selection: Selection, positions: Array<{ ts: number; id: string }>, column = 'line'): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  if (positions.length === 0) return found;
  const params: SqlParams = { ...selection.params, atTimes: [...new Set(positions.map((at) => at.ts))], atIds: positions.map((at) => at.id) };
  const rows = await executor.rows<{ ts_ms: string; line_id: string; text: string }>(
    `SELECT toUnixTimestamp64Milli(ts) AS ts_ms, toString(id) AS line_id, ${column} AS text FROM ${selection.table}
      WHERE ${selection.where.join(' AND ')}
        AND ts IN (SELECT fromUnixTimestamp64Milli(arrayJoin({atTimes:Array(Int64)})))
        AND id IN (SELECT toUInt64(arrayJoin({atIds:Array(String)})))`,
    params,
    // Every selected line is masked: apart, so that inserts and searches go on beside it.
    { apart: true },
  );
  for (const row of rows) found.set(`${row.ts_ms}:${row.line_id}`, row.text);
  return found;
}

/** An RE2 pattern over masked texts, and the number of tokens (split at single spaces) of every text it matches. */
export interface MaskedFit {
  pattern: string;
  tokens: number;
}

/**
 * For each pattern, whether some line of the selection has a masked text it matches. The lines
 * are masked and grouped first, and a pattern runs only over the distinct texts of its number of
 * tokens: over a window of lines that nearly all differ, 50 patterns run over every text took
 * seconds. Given `needles`, only lines holding one of them (bytes as they are) are masked: the
 * caller knows that every line whose masked text matches a pattern holds one.
 */
export async function anyMaskedMatch(executor: SqlExecutor, selection: Selection, fits: MaskedFit[], needles?: string[]): Promise<boolean[]> {
  if (fits.length === 0) return [];
  const params: SqlParams = { ...selection.params };
  const tests = fits.map((fit, at) => {
    params[`fit${at}`] = fit.pattern;
    params[`tokens${at}`] = fit.tokens;
    return `max(tokens = {tokens${at}:UInt32} AND match(masked, {fit${at}:String})) AS seen${at}`;
  });
  const where = [...selection.where];
  if (needles) {
    if (needles.length === 0) return fits.map(() => false);
    // multiSearchAny takes at most 255 needles.
    const chunks: string[] = [];
    for (let at = 0; at < needles.length; at += 200) {
      params[`needles${chunks.length}`] = needles.slice(at, at + 200);
      chunks.push(`multiSearchAny(line, {needles${chunks.length}:Array(String)})`);
    }
    where.push(`(${chunks.join(' OR ')})`);
  }
  const [row] = await executor.rows<Record<string, string | number>>(
    `SELECT ${tests.join(', ')} FROM (SELECT masked, countSubstrings(masked, ' ') + 1 AS tokens
      FROM (SELECT DISTINCT ${MASKED_LINE} AS masked FROM ${selection.table} WHERE ${where.join(' AND ')}))`,
    params,
    // Every selected line is masked: apart, so that inserts and searches go on beside it.
    { apart: true },
  );
  return fits.map((_, at) => Number(row?.[`seen${at}`] ?? 0) === 1);
}
