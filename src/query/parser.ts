import type { CompareOp, FieldRef, MatchMode, QueryNode } from './ast.js';
import { RESERVED_JSON_KEYS } from '../store/reserved-keys.js';

/**
 * The search language's parser. Precedence, highest first: grouping `( )`, then NOT (`-`, `NOT`),
 * then `OR`, then AND (whitespace or `AND`), as Mezmo documents it: `me myself OR I` means
 * `me AND (myself OR I)`. Keywords are case-sensitive. See docs/search.md for the whole syntax.
 */

export class QueryParseError extends Error {
  constructor(
    readonly position: number,
    readonly expected: string,
    found: string,
  ) {
    super(`Invalid query at position ${position}: expected ${expected}, found ${found}.`);
  }
}

const BUILTIN = new Set(['host', 'app', 'level', 'file', 'env', 'tag']);
const SIZE_FIELDS = new Set(['_mezmo_line_size', '_line_size', 'size']);
/** Root keys of JSON lines stored with an underscore; searched by either name. */
const RESERVED_ROOT = new Set(RESERVED_JSON_KEYS);
const FIELD_NAME = /^[A-Za-z_@][A-Za-z0-9_@\-]*(\.[A-Za-z0-9_@\-]+)*$/;
const NUMBER = /^-?\d+(\.\d+)?$/;
const MAX_DEPTH = 100;
const MAX_LENGTH = 10_000;
/**
 * Each term becomes its own index lookups and text tests in SQL; thousands of them (a 10,000
 * character query can hold 5,000 one-letter words) would take the engine minutes to plan.
 */
const MAX_TERMS = 200;

/** Whether the language reads `name:` as a field search (else the word is searched as text). */
export const isFieldName = (name: string): boolean => FIELD_NAME.test(name);

export function resolveField(name: string): FieldRef {
  if (name === 'source') return { kind: 'builtin', name: 'host' };
  if (BUILTIN.has(name)) return { kind: 'builtin', name: name as 'host' };
  if (SIZE_FIELDS.has(name)) return { kind: 'size' };
  const path = name.split('.');
  if (path[0] === 'meta' && path.length > 1) return { kind: 'meta', path: path.slice(1) };
  if (RESERVED_ROOT.has(path[0])) path[0] = `_${path[0]}`;
  return { kind: 'json', path };
}

/**
 * A field named as search names it (`status`, `meta.customer`, `app`, `size`), for the places that
 * take a field outside a query (a graph's measure and breakdown); undefined when it is not a name
 * search accepts.
 */
export function fieldByName(name: string): FieldRef | undefined {
  return FIELD_NAME.test(name) ? resolveField(name) : undefined;
}

const isSpace = (ch: string) => ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r';
/** Characters that end a bare word outside quotes and brackets. */
const isDelimiter = (ch: string) => isSpace(ch) || ch === '(' || ch === ')' || ch === '"' || ch === "'";

function describe(text: string, at: number): string {
  if (at >= text.length) return 'the end of the query';
  return `"${text.slice(at, at + 12)}${text.length > at + 12 ? '…' : ''}"`;
}

class Parser {
  private at = 0;
  private depth = 0;
  private terms = 0;

  constructor(private readonly text: string) {}

  parse(): QueryNode {
    this.skipSpace();
    if (this.at >= this.text.length) return { kind: 'all' };
    const node = this.andExpr(null);
    this.skipSpace();
    if (this.at < this.text.length) {
      throw this.error(this.text[this.at] === ')' ? 'no ")" without a matching "("' : 'an operator or a term');
    }
    return node;
  }

  private error(expected: string, at = this.at): QueryParseError {
    return new QueryParseError(at, expected, describe(this.text, at));
  }

  private skipSpace() {
    while (this.at < this.text.length && isSpace(this.text[this.at])) this.at++;
  }

  /** A keyword stands alone: followed by space, a group or the end. */
  private keyword(word: string): boolean {
    if (!this.text.startsWith(word, this.at)) return false;
    const next = this.text[this.at + word.length];
    return next === undefined || isSpace(next) || next === '(' || next === '"' || next === "'";
  }

  private atExpressionEnd(): boolean {
    this.skipSpace();
    return this.at >= this.text.length || this.text[this.at] === ')';
  }

  /** AND: the loosest operator. `field` is set inside a field group such as status:(...). */
  private andExpr(field: FieldRef | null): QueryNode {
    const children = [this.orExpr(field)];
    for (;;) {
      if (this.atExpressionEnd()) break;
      if (this.keyword('AND')) {
        this.at += 3;
        this.skipSpace();
        if (this.atExpressionEnd()) throw this.error('a term after AND');
      }
      children.push(this.orExpr(field));
    }
    return children.length === 1 ? children[0] : { kind: 'and', children };
  }

  private orExpr(field: FieldRef | null): QueryNode {
    const children = [this.unary(field)];
    for (;;) {
      const save = this.at;
      this.skipSpace();
      if (!this.keyword('OR')) {
        this.at = save;
        break;
      }
      this.at += 2;
      this.skipSpace();
      if (this.atExpressionEnd()) throw this.error('a term after OR');
      children.push(this.unary(field));
    }
    return children.length === 1 ? children[0] : { kind: 'or', children };
  }

  private unary(field: FieldRef | null): QueryNode {
    this.skipSpace();
    const start = this.at;
    if (this.keyword('NOT')) {
      this.at += 3;
      this.skipSpace();
      if (this.atExpressionEnd()) throw this.error('a term after NOT');
      return this.negate(field, start);
    }
    if (this.text[this.at] === '-' && this.at + 1 < this.text.length && !isSpace(this.text[this.at + 1]) && this.text[this.at + 1] !== ')') {
      // Inside a numeric group, -404 means "not 404"; a minus sign belongs to the operator: >-5.
      this.at++;
      return this.negate(field, start);
    }
    if (this.text[this.at] === '-') throw this.error('a term after "-"', this.at + 1);
    return this.primary(field);
  }

  private negate(field: FieldRef | null, start: number): QueryNode {
    if (++this.depth > MAX_DEPTH) throw this.error(`at most ${MAX_DEPTH} nested operators`, start);
    const child = this.unary(field);
    this.depth--;
    return { kind: 'not', child };
  }

  /** Counts `added` more terms, starting at `start`, against MAX_TERMS. */
  private countTerms(start: number, added = 1) {
    this.terms += added;
    if (this.terms > MAX_TERMS) throw this.error(`at most ${MAX_TERMS} search terms (words, phrases and field tests)`, start);
  }

  private primary(field: FieldRef | null): QueryNode {
    const ch = this.text[this.at];
    if (ch === undefined) throw this.error('a term');
    if (ch === ')') throw this.error('a term');
    if (ch === '(') return this.group(field);
    this.countTerms(this.at);
    if (ch === '"' || ch === "'") {
      const value = this.quoted();
      return field ? { kind: 'field', field, test: { kind: 'text', value, mode: '' } } : { kind: 'text', value, mode: '' };
    }
    if (field) return this.fieldValue(field);
    for (const operator of ['AND', 'OR']) if (this.keyword(operator)) throw this.error(`a term before ${operator}`);
    return this.termOrField();
  }

  private group(field: FieldRef | null): QueryNode {
    const open = this.at;
    if (++this.depth > MAX_DEPTH) throw this.error(`at most ${MAX_DEPTH} nested groups`, open);
    this.at++;
    this.skipSpace();
    if (this.text[this.at] === ')') throw this.error('a term inside the parentheses');
    const node = this.andExpr(field);
    this.skipSpace();
    if (this.text[this.at] !== ')') throw this.error(`")" to close the group opened at position ${open}`);
    this.at++;
    this.depth--;
    return node;
  }

  /** A quoted phrase; a backslash escapes the next character. */
  private quoted(): string {
    const quote = this.text[this.at];
    const open = this.at;
    this.at++;
    let value = '';
    while (this.at < this.text.length && this.text[this.at] !== quote) {
      if (this.text[this.at] === '\\' && this.at + 1 < this.text.length) this.at++;
      value += this.text[this.at++];
    }
    if (this.at >= this.text.length) throw this.error(`${quote} to close the phrase opened at position ${open}`);
    this.at++;
    if (value === '') throw this.error('text inside the quotes', open + 1);
    return value;
  }

  private word(): string {
    const start = this.at;
    while (this.at < this.text.length && !isDelimiter(this.text[this.at])) this.at++;
    return this.text.slice(start, this.at);
  }

  private mode(): MatchMode {
    let equals = 0;
    while (equals < 3 && this.text[this.at] === '=') {
      equals++;
      this.at++;
    }
    return '='.repeat(equals) as MatchMode;
  }

  private termOrField(): QueryNode {
    const start = this.at;
    const mode = this.mode();
    const word = this.word();
    const colon = word.indexOf(':');
    if (mode === '' && colon > 0 && FIELD_NAME.test(word.slice(0, colon))) {
      this.at = start + colon + 1;
      return this.fieldSearch(resolveField(word.slice(0, colon)), start);
    }
    if (word === '') throw this.error('a term', start + mode.length);
    return { kind: 'text', value: word, mode };
  }

  /** What follows `field:` — a value, a list, a group, a comparison or `*`. */
  private fieldSearch(field: FieldRef, start: number): QueryNode {
    const ch = this.text[this.at];
    if (ch === undefined || isSpace(ch)) throw this.error(`a value right after "${this.text.slice(start, this.at)}" (no space after the colon)`);
    if (ch === '*' && (this.at + 1 >= this.text.length || isDelimiter(this.text[this.at + 1]))) {
      this.at++;
      return { kind: 'field', field, test: { kind: 'exists' } };
    }
    if (ch === '(') return this.group(field);
    if (ch === '-' && this.text[this.at + 1] === '(') {
      this.at++;
      return { kind: 'not', child: this.group(field) };
    }
    if (ch === '"' || ch === "'") return { kind: 'field', field, test: { kind: 'text', value: this.quoted(), mode: '' } };
    return this.fieldValue(field);
  }

  /** One test on a known field: comparison, list, or a word with a match mode. */
  private fieldValue(field: FieldRef): QueryNode {
    const start = this.at;
    const comparison = /^(>=|<=|>|<)/.exec(this.text.slice(this.at, this.at + 2));
    if (comparison) {
      this.at += comparison[1].length;
      this.skipSpace();
      const number = this.word();
      if (!NUMBER.test(number)) throw this.error(`a number after "${comparison[1]}"`, this.at - number.length);
      this.requireNumeric(field, start);
      return { kind: 'field', field, test: { kind: 'compare', op: comparison[1] as CompareOp, value: Number(number) } };
    }
    const mode = this.mode();
    if (this.text[this.at] === '[') return this.list(field, mode);
    if (this.text[this.at] === '"' || this.text[this.at] === "'") {
      return { kind: 'field', field, test: { kind: 'text', value: this.quoted(), mode } };
    }
    const value = this.word();
    if (value === '') throw this.error('a value', this.at);
    // A number with '=' or alone (as in status:(>=400 -404)) means numeric equality on numbers;
    // digits have no case, so on text it is the same prefix match either way.
    if ((mode === '=' || mode === '') && NUMBER.test(value)) {
      return { kind: 'field', field, test: { kind: 'equals', value: Number(value), text: value } };
    }
    return { kind: 'field', field, test: { kind: 'text', value, mode } };
  }

  /** field:[a,b]: any of the values. Spaces and parentheses inside the brackets are part of the values. */
  private list(field: FieldRef, mode: MatchMode): QueryNode {
    const open = this.at;
    const close = this.text.indexOf(']', open);
    if (close < 0) throw this.error(`"]" to close the list opened at position ${open}`, this.text.length);
    const values = this.text.slice(open + 1, close).split(',');
    if (values.some((value) => value === '')) throw this.error('a value between the commas of the list', open + 1);
    this.countTerms(open, values.length - 1);
    this.at = close + 1;
    const children: QueryNode[] = values.map((value) => ({ kind: 'field', field, test: { kind: 'text', value, mode } }));
    return children.length === 1 ? children[0] : { kind: 'or', children };
  }

  private requireNumeric(field: FieldRef, at: number) {
    if (field.kind === 'builtin') throw this.error(`a numeric field for a comparison ("${field.name}" holds text)`, at);
  }
}

/** Parses a query; an empty query matches every line. Throws QueryParseError with the position. */
export function parseQuery(text: string): QueryNode {
  if (text.length > MAX_LENGTH) throw new QueryParseError(MAX_LENGTH, `a query of at most ${MAX_LENGTH} characters`, 'a longer one');
  return new Parser(text).parse();
}
