import { RE2JS } from 're2js';
import { errors } from '../http/errors.js';
import { fieldLabel } from '../http/field-labels.js';
import { lineMatcher } from '../query/line-matcher.js';
import type { SearchableLine } from '../query/searchable.js';
import { setField } from '../ingest/formats/parsed.js';
import type { CaptureType, Parser, ParserStore } from './parser-store.js';

/** Characters of a pattern: RE2 compiles anything to a linear-time program, but its size grows with the pattern. */
export const MAX_PATTERN_CHARS = 2000;
/**
 * Instructions of a compiled pattern: matching costs up to this much per character of a line, so
 * a pattern that expands far (`\w{1000}` repeated) is refused as too large when it is written, as
 * RE2 refuses one over its memory budget. A thorough access-log pattern compiles to about 55.
 * A rule saved before this limit still applies: LINE_STEPS holds what it costs per line.
 */
export const MAX_PROGRAM_SIZE = 2000;
/**
 * Instructions times characters that matching may spend on one line, over every rule tried on
 * it. Linear time is still time: measured with re2js, a pattern that keeps many threads alive
 * (`(a|aa)*(a|b){500}` unanchored on 16 KiB of one letter) costs about 40 ns a step, so this
 * holds the worst line to about 40 ms, while a 100-instruction pattern still reads 10,000
 * characters a line for each of ten rules. A match is charged twice what it read: finding where
 * the captures lie costs about as much again as deciding that the pattern matches. A rule reads fewer characters of a line as
 * the budget runs out (its start, where formats put their fields), and none once it is spent.
 */
export const LINE_STEPS = 1_000_000;
/** Named captures per pattern, as fields per line. */
export const MAX_CAPTURES = 50;
/** Rules per organisation: each line not JSON is tried against each that applies to it. */
export const MAX_PARSERS_PER_ACCOUNT = 50;
/** Characters of a line a pattern reads: matching stays linear, and cheap, on the longest lines. */
const MATCHED_CHARS = 16 * 1024;

/** A pattern's fault as the configuration envelope gives it: the message, with the field it is about. */
const invalid = (key: 'pattern' | 'types', message: string) => errors.validationFailed([{ message, key, field: fieldLabel([key]) }]);

/** Capture names that would take a built-in filter's place (a `level` capture sets the line's level instead). */
const FORBIDDEN_CAPTURES = new Set(['host', 'app', 'tag']);

/** A pattern compiled, with its named captures. */
export interface CompiledPattern {
  re: RE2JS;
  /** Its program's instructions: what each character it reads may cost. */
  size: number;
  captures: string[];
  types: Record<string, CaptureType>;
}

/**
 * Compiles a user's pattern in RE2 (re2js, a port of RE2/J: linear-time matching, no
 * backreferences or lookaround), or throws the 400 that says why it cannot run. Named captures
 * are written `(?P<name>...)` (or `(?<name>...)`); `types` may only name those.
 */
export function compilePattern(pattern: string, types: Record<string, CaptureType>, limits: 'writing' | 'saved' = 'writing'): CompiledPattern {
  if (limits === 'writing' && pattern.length > MAX_PATTERN_CHARS) throw invalid('pattern', `The pattern is ${pattern.length} characters long; the limit is ${MAX_PATTERN_CHARS}.`);
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (error) {
    throw invalid('pattern', `The pattern cannot run in RE2 (linear-time regular expressions, no backreferences or lookaround): ${(error as Error).message}`);
  }
  if (limits === 'writing' && re.programSize() > MAX_PROGRAM_SIZE) {
    throw invalid('pattern', `The pattern is too large: it compiles to ${re.programSize()} instructions, and the limit is ${MAX_PROGRAM_SIZE} (repetition counts multiply its size).`);
  }
  const captures = Object.keys(re.namedGroups());
  if (captures.length === 0) throw invalid('pattern', 'The pattern has no named capture: name each field to extract as (?P<name>...).');
  if (captures.length > MAX_CAPTURES) throw invalid('pattern', `The pattern has ${captures.length} named captures; the limit is ${MAX_CAPTURES}.`);
  const forbidden = captures.filter((name) => FORBIDDEN_CAPTURES.has(name));
  if (forbidden.length) throw invalid('pattern', `A capture may not be named ${forbidden.join(', ')}: those are built-in filters of every line.`);
  const unknown = Object.keys(types).filter((name) => !captures.includes(name));
  if (unknown.length) throw invalid('types', `types names ${unknown.join(', ')}, which the pattern does not capture (it captures ${captures.join(', ')}).`);
  return { re, size: re.programSize(), captures, types };
}

/** What matching may still spend on one line (LINE_STEPS), drawn down by each rule tried. */
export interface StepBudget {
  steps: number;
}

export const lineBudget = (): StepBudget => ({ steps: LINE_STEPS });

/** How many characters of a line's start a pattern reads with `steps` left. */
export function readableChars(compiled: CompiledPattern, lineLength: number, steps: number): number {
  return Math.max(0, Math.min(lineLength, MATCHED_CHARS, Math.floor(steps / compiled.size)));
}

/** What extract found on a line: its typed fields, and the level a `level` capture names. */
export interface Extracted {
  fields: Record<string, unknown>;
  level?: string;
}

/**
 * The fields a compiled pattern extracts from a line, typed; null when it does not match. It
 * reads as much of the line's start as `budget` pays for (at most MATCHED_CHARS), and draws
 * the budget down by what it read (twice that on a match). On a line read only in part, a match
 * that reaches the cut is refused: `.*` or `$` there would capture or accept a line cut short.
 */
export function extract(compiled: CompiledPattern, line: string, budget: StepBudget = lineBudget()): Extracted | null {
  const readable = readableChars(compiled, line.length, budget.steps);
  if (readable <= 0 && line.length > 0) return null;
  budget.steps -= readable * compiled.size;
  const cut = readable < line.length;
  const matcher = compiled.re.matcher(cut ? line.slice(0, readable) : line);
  if (!matcher.find()) return null;
  budget.steps -= readable * compiled.size;
  if (cut && matcher.end() >= readable) return null;
  const fields: Record<string, unknown> = {};
  let level: string | undefined;
  for (const name of compiled.captures) {
    const text = matcher.group(name);
    if (text === null || text === undefined) continue;
    if (name === 'level') {
      level = text;
      continue;
    }
    setField(fields, name, typed(text, compiled.types[name] ?? 'string'));
  }
  return { fields, level };
}

/** A captured text as its declared type; text that is not one stays text (nothing is lost). */
function typed(text: string, type: CaptureType): unknown {
  if (type === 'number') {
    const trimmed = text.trim();
    const value = trimmed === '' ? NaN : Number(trimmed);
    return Number.isFinite(value) ? value : text;
  }
  if (type === 'boolean') {
    const lower = text.trim().toLowerCase();
    return lower === 'true' ? true : lower === 'false' ? false : text;
  }
  return text;
}

/** A saved rule, compiled for ingest. */
export interface CompiledParser extends CompiledPattern {
  id: string;
  name: string;
  applies: (line: SearchableLine) => boolean;
  updated: number;
}

function compileParser(parser: Parser): CompiledParser {
  const pattern = compilePattern(parser.pattern, parser.types, 'saved');
  return { ...pattern, id: parser.id, name: parser.name, updated: parser.updated, applies: lineMatcher({ apps: parser.apps, hosts: parser.hosts, query: parser.query }, null) };
}

const NONE: CompiledParser[] = [];

/**
 * Every organisation's rules, compiled, as this node applies them at ingest: reloaded at once
 * when a rule is written here and every second from the database (a write at another node).
 * Compiled patterns are kept while their rule is unchanged, so the reload costs one query.
 */
export class ParserRules {
  private byAccount = new Map<string, CompiledParser[]>();
  /** Saved rules that did not compile, by id, with the version that failed: tried and reported once. */
  private readonly failed = new Map<string, number>();
  private loading: Promise<void> | undefined;

  constructor(
    private readonly store: ParserStore,
    private readonly onBadRule: (parser: Parser, error: unknown) => void = () => {},
  ) {}

  forAccount(account: string): CompiledParser[] {
    return this.byAccount.get(account) ?? NONE;
  }

  /** Reloads every organisation's rules; a call while one runs shares it. */
  load(): Promise<void> {
    this.loading ??= this.loadAll().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async loadAll(): Promise<void> {
    const known = new Map<string, CompiledParser>();
    for (const list of this.byAccount.values()) for (const parser of list) known.set(parser.id, parser);
    const next = new Map<string, CompiledParser[]>();
    for (const parser of await this.store.all()) {
      const compiled = this.compiled(parser, known);
      if (!compiled) continue;
      const list = next.get(parser.account) ?? [];
      list.push(compiled);
      next.set(parser.account, list);
    }
    this.byAccount = next;
  }

  /** After a write at this node: that organisation's rules at once. */
  async reload(account: string): Promise<void> {
    const known = new Map((this.byAccount.get(account) ?? []).map((parser) => [parser.id, parser]));
    const list: CompiledParser[] = [];
    for (const parser of await this.store.list(account)) {
      const compiled = this.compiled(parser, known);
      if (compiled) list.push(compiled);
    }
    if (list.length) this.byAccount.set(account, list);
    else this.byAccount.delete(account);
  }

  private compiled(parser: Parser, known: Map<string, CompiledParser>): CompiledParser | undefined {
    const previous = known.get(parser.id);
    if (previous && previous.updated === parser.updated) return previous;
    if (this.failed.get(parser.id) === parser.updated) return undefined;
    try {
      const compiled = compileParser(parser);
      this.failed.delete(parser.id);
      return compiled;
    } catch (error) {
      // Saved rules were compiled when saved; one that no longer compiles (a newer engine) is
      // skipped, not fatal, and reported once rather than at every reload.
      if (this.failed.size > 10_000) this.failed.clear();
      this.failed.set(parser.id, parser.updated);
      this.onBadRule(parser, error);
      return undefined;
    }
  }
}
