import type { SqlExecutor, SqlParams } from './executor.js';
import { sqlString } from './tables.js';

/**
 * The engine's half of log patterns (GET /v1/viewer/patterns; the clustering is in
 * src/viewer/patterns): each line's text with its variable parts masked as `<*>`, in one linear
 * pass of one RE2 pattern, and the lines grouped by that masked text with exact counts. The
 * clustering then sees each distinct masked text once, with its count, instead of every line.
 */

/**
 * What masking replaces with `<*>`, tried in this order at each place in the line (RE2 takes the
 * first alternative that matches where a match starts first):
 * - a UUID; a date, with its time and zone when given; a time of day;
 * - an e-mail address; an IPv4 address with its port; a MAC or a full IPv6 address;
 * - a hex number (`0x1f`); a duration (`12ms`, `1.5s`, `1h30m`); a size (`12KB`, `3MiB`);
 * - a run of 8 or more hex digits (ids, hashes); any other number (`42`, `3.5`).
 * Each stands alone (`\b`): `user_42` and `v2` stay as they are, for Drain to tell apart by
 * token. URLs and paths are kept: their words are what a person looks for.
 */
export const MASK_ALTERNATIVES: readonly string[] = [
  String.raw`\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b`,
  String.raw`\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?`,
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

const mask = (text: string) => `replaceRegexpAll(replaceRegexpAll(${text}, ${sqlString(MASK_ALTERNATIVES.join('|'))}, '<*>'), ${sqlString(QUOTED_VALUE)}, '=<*>')`;
/** A line's masked text (the SQL twin of nothing: only the engine masks). */
const MASKED_LINE = `if(lengthUTF8(line) <= ${MASKED_CHARACTERS}, ${mask('line')},
  concat(${mask(`replaceRegexpOne(leftUTF8(line, ${MASKED_CHARACTERS}), '[^ ]*$', '')`)}, '<*>'))`;

/** A masked text with tokens after the first `keep` made `<*>`: the coarser key of a rare text. */
const coarse = (key: string, keep: number) =>
  `arrayStringConcat(arrayMap((token, at) -> if(at <= ${keep}, token, '<*>'), splitByChar(' ', ${key}), arrayEnumerate(splitByChar(' ', ${key}))), ' ')`;

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
 * Each level re-ranks its groups and coarsens those past `limit`, keeping every count. Over
 * texts that are nearly all distinct (bench/analysis's synthetic lines) the levels cost as much
 * as masking and grouping; over templated logs, whose distinct texts are few, next to nothing.
 */
function coarsened(source: string, limit: string, keep: number): string {
  return `SELECT key, sum(lines) AS lines, min(first_at) AS first_at, max(last_ts) AS last_ts,
      sumMap(tupleElement(volume, 1), tupleElement(volume, 2)) AS volume
    FROM (SELECT if(row_number() OVER (ORDER BY lines DESC, key ASC) <= ${limit}, key, ${coarse('key', keep)}) AS key, lines, first_at, last_ts, volume FROM (${source}))
    GROUP BY key`;
}

/**
 * A filter's lines grouped by masked text: each group's count, first and last time, first line's
 * position and volume per bucket. Ordered by count, then text, so the same lines give the same
 * groups in the same order, whatever order they were stored in.
 */
export async function patternGroups(executor: SqlExecutor, selection: Selection, options: PatternGroupOptions): Promise<PatternGroup[]> {
  const params: SqlParams = { ...selection.params, bucketMs: options.bucketMs, maxGroups: options.maxGroups, maxKept: options.maxGroups + options.maxCoarse };
  const exact = `SELECT masked AS key, count() AS lines, min((ts, id)) AS first_at, max(ts) AS last_ts,
      sumMap([toUInt32(intDiv(toUnixTimestamp64Milli(ts) - {fromMs:Int64}, {bucketMs:Int64}))], [toUInt64(1)]) AS volume
    FROM (SELECT ${MASKED_LINE} AS masked, ts, id FROM ${selection.table} WHERE ${selection.where.join(' AND ')})
    GROUP BY masked`;
  const levels = coarsened(coarsened(exact, '{maxGroups:UInt32}', 1), '{maxKept:UInt32}', 0);
  const rows = await executor.rows<{ key: string; lines: string; first_ms: string; first_id: string; last_ms: string; buckets: string[]; counts: string[] }>(
    `SELECT key, lines, toUnixTimestamp64Milli(tupleElement(first_at, 1)) AS first_ms, toString(tupleElement(first_at, 2)) AS first_id,
        toUnixTimestamp64Milli(last_ts) AS last_ms, tupleElement(volume, 1) AS buckets, tupleElement(volume, 2) AS counts
      FROM (${levels}) ORDER BY lines DESC, key ASC`,
    params,
  );
  return rows.map((row) => ({
    text: row.key,
    lines: Number(row.lines),
    firstMs: Number(row.first_ms),
    lastMs: Number(row.last_ms),
    firstId: row.first_id,
    volume: row.buckets.map((bucket, at) => [Number(bucket), Number(row.counts[at])]),
  }));
}

/**
 * The text of the lines at these positions among a selection's lines (the selection again, so a
 * line outside it is never returned), by "ts:id".
 */
export async function linesAt(executor: SqlExecutor, selection: Selection, positions: Array<{ ts: number; id: string }>): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  if (positions.length === 0) return found;
  const params: SqlParams = { ...selection.params, atTimes: [...new Set(positions.map((at) => at.ts))], atIds: positions.map((at) => at.id) };
  const rows = await executor.rows<{ ts_ms: string; line_id: string; line: string }>(
    `SELECT toUnixTimestamp64Milli(ts) AS ts_ms, toString(id) AS line_id, line FROM ${selection.table}
      WHERE ${selection.where.join(' AND ')}
        AND ts IN (SELECT fromUnixTimestamp64Milli(arrayJoin({atTimes:Array(Int64)})))
        AND id IN (SELECT toUInt64(arrayJoin({atIds:Array(String)})))`,
    params,
  );
  for (const row of rows) found.set(`${row.ts_ms}:${row.line_id}`, row.line);
  return found;
}

/**
 * For each RE2 pattern, whether some line of the selection has a masked text it matches. The
 * lines are masked and grouped first, so each pattern runs once per distinct masked text.
 */
export async function anyMaskedMatch(executor: SqlExecutor, selection: Selection, patterns: string[]): Promise<boolean[]> {
  if (patterns.length === 0) return [];
  const params: SqlParams = { ...selection.params };
  const tests = patterns.map((pattern, at) => {
    params[`fit${at}`] = pattern;
    return `max(match(masked, {fit${at}:String})) AS seen${at}`;
  });
  const [row] = await executor.rows<Record<string, string | number>>(
    `SELECT ${tests.join(', ')} FROM (SELECT DISTINCT ${MASKED_LINE} AS masked FROM ${selection.table} WHERE ${selection.where.join(' AND ')})`,
    params,
  );
  return patterns.map((_, at) => Number(row?.[`seen${at}`] ?? 0) === 1);
}
