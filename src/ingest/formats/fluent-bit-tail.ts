/**
 * Fluent Bit's `tail` input, with no parser set, makes each line of a file the record
 * `{"log":"<the line>"}`, and its `logdna` output sends that record's JSON text as the line
 * (README, "Fluent Bit"). Given a JSON line's parsed fields, returns the file's own line when the
 * record is that and nothing more, else null: the caller stores and parses the file's line as if
 * it had been sent alone, so an nginx or logfmt file tailed by Fluent Bit gets its fields. A record
 * with any other key (a parser's fields, a filter's metadata) is JSON of its own and kept as it is.
 */
export function tailRecordLine(fields: Record<string, unknown>): string | null {
  const log = fields.log;
  if (typeof log !== 'string') return null;
  for (const key in fields) if (key !== 'log') return null;
  let end = log.length;
  if (log.charCodeAt(end - 1) === 10) end--;
  if (log.charCodeAt(end - 1) === 13) end--;
  // An empty line has nothing to parse: the record stays as it came.
  return end > 0 ? log.slice(0, end) : null;
}
