import { lineLevel } from '../ingest/level.js';
import type { PendingLine } from '../ingest/normalise.js';
import { type CompiledParser, extract } from './parser-rules.js';

/**
 * Applies an organisation's custom rules to a line that is not JSON: the first rule, in the order
 * they were made, whose apps, hosts and query take the line (as it would be stored) and whose
 * pattern matches it sets the fields it captures over any a common format parsed, its name as
 * the line's `_logtype`, and the level a `level` capture names.
 */
export function applyParsers(line: PendingLine, rules: readonly CompiledParser[]): void {
  const { row } = line;
  if (row.logtype === 'json') return;
  for (const rule of rules) {
    if (!rule.applies(row)) continue;
    const extracted = extract(rule, row.line);
    if (!extracted) continue;
    const before = line.formatFields ?? (row.fields ? (JSON.parse(row.fields) as Record<string, unknown>) : null);
    const fields = before ? Object.assign(before, extracted.fields) : extracted.fields;
    line.formatFields = fields;
    row.fields = JSON.stringify(fields);
    row.logtype = rule.name;
    if (extracted.level) row.level = lineLevel(extracted.level, row.line);
    return;
  }
}
