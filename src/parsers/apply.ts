import { performance } from 'node:perf_hooks';
import { lineLevel } from '../ingest/level.js';
import type { PendingLine } from '../ingest/normalise.js';
import { type CompiledParser, type StepBudget, extract, lineBudget } from './parser-rules.js';

/**
 * Applies an organisation's custom rules to a line that is not JSON: the first rule, in the order
 * they were made, whose apps, hosts and query take the line (as it would be stored) and whose
 * pattern matches it sets the fields it captures over any a common format parsed, its name as
 * the line's `_logtype`, and the level a `level` capture names. The rules tried share one step
 * budget (parser-rules.ts: LINE_STEPS).
 */
export function applyParsers(line: PendingLine, rules: readonly CompiledParser[], budget: StepBudget = lineBudget()): void {
  const { row } = line;
  if (row.logtype === 'json') return;
  for (const rule of rules) {
    if (budget.steps <= 0) return;
    if (!rule.applies(row)) continue;
    const extracted = extract(rule, row.line, budget);
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

/**
 * Milliseconds an organisation's custom rules may take per second at one node. Each line is held
 * to LINE_STEPS, but a flood of lines that each spend it would still take a core; past this share,
 * the rest of that second's lines are stored as they came (format parsing still applies) and
 * counted, so one organisation's rules cannot slow everyone's ingest.
 */
export const PARSING_MS_PER_SECOND = 200;

/** Custom parsing at ingest, held to each organisation's share of time. */
export class ParsingTime {
  private readonly spent = new Map<string, { second: number; ms: number }>();

  constructor(
    /** Lines left unparsed by custom rules because their organisation's time was spent. */
    private readonly onSkipped: (account: string, lines: number) => void,
    private readonly msPerSecond = PARSING_MS_PER_SECOND,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  apply(account: string, lines: readonly PendingLine[], rules: readonly CompiledParser[]): void {
    if (rules.length === 0) return;
    let started = this.clock();
    const used = this.thisSecond(account, started);
    for (let index = 0; index < lines.length; index++) {
      if (used.ms >= this.msPerSecond) {
        this.onSkipped(account, lines.length - index);
        return;
      }
      applyParsers(lines[index], rules);
      const now = this.clock();
      used.ms += now - started;
      started = now;
    }
  }

  /**
   * Runs other work on an organisation's rules (a test of a pattern, which any reader may ask
   * for) on its share: false, without running it, when this second's share is spent.
   */
  spend<T>(account: string, work: () => T): { done: true; value: T } | { done: false } {
    const started = this.clock();
    const used = this.thisSecond(account, started);
    if (used.ms >= this.msPerSecond) return { done: false };
    try {
      return { done: true, value: work() };
    } finally {
      used.ms += this.clock() - started;
    }
  }

  private thisSecond(account: string, now: number): { second: number; ms: number } {
    const second = Math.floor(now / 1000);
    let used = this.spent.get(account);
    if (!used || used.second !== second) {
      if (this.spent.size > 10_000) this.spent.clear(); // only the current second matters
      this.spent.set(account, (used = { second, ms: 0 }));
    }
    return used;
  }
}
