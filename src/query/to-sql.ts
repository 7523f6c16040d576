import type { SqlParams } from '../store/executor.js';
import { INDEXED_TEXT, LOGS_TABLE, SEARCH_TEXT, TEXT_INDEX } from '../store/schema.js';
import type { SqlCondition } from '../store/types.js';
import type { FieldRef, FieldTest, MatchMode, QueryNode } from './ast.js';
import { caseSensitive, indexTokens, wordPattern } from './text-match.js';

const NUMERIC_JSON = "('Int64', 'UInt64', 'Double')";

/**
 * A word prefix is expanded to the index tokens that start with it, read from the text index's
 * sorted dictionary; past this many, the expansion is abandoned for a scan of the text.
 */
const MAX_PREFIX_TOKENS = 1000;

/**
 * Past this many characters of tokens a prefix is scanned for too: a ClickHouse server refuses a
 * bound parameter over 128 KiB (http_max_field_value_size), and 1,000 long ids come near it.
 */
const MAX_PREFIX_TOKEN_CHARACTERS = 64 * 1024;

/** The index tokens that start with the bound prefix, one a row; more than MAX_PREFIX_TOKENS means too many. */
const dictionaryTokens = (prefixPlaceholder: string) => `SELECT DISTINCT token FROM mergeTreeTextIndex(currentDatabase(), '${LOGS_TABLE}', '${TEXT_INDEX}')
        WHERE startsWith(token, ${prefixPlaceholder}) LIMIT ${MAX_PREFIX_TOKENS + 1}`;

/** Too many tokens to bind: the text is scanned instead. */
const tooManyTokens = (tokens: string[]) =>
  tokens.length > MAX_PREFIX_TOKENS || tokens.reduce((characters, token) => characters + token.length + 3, 0) > MAX_PREFIX_TOKEN_CHARACTERS;

/** Each prefix's index tokens, as DICTIONARY_TOKENS listed them. */
type PrefixExpansions = ReadonlyMap<string, string[]>;

class SqlCompiler {
  readonly params: SqlParams = {};
  /** Set by field tests and by word tests the index tokens do not decide alone. */
  readsLines = false;
  /** The word prefixes met, in order, for a store that expands them first. */
  readonly prefixes = new Set<string>();
  private next = 0;

  /** Without expansions, each prefix is expanded inside the query by a scalar subquery. */
  constructor(private readonly expansions?: PrefixExpansions) {}

  private bind(value: string | number | string[], type: string): string {
    const name = `q${this.next++}`;
    // Numbers go as text: chDB refuses to bind numbers beyond 2^53, and String() round-trips a double.
    this.params[name] = Array.isArray(value) ? value : String(value);
    return `{${name}:${type}}`;
  }

  /** A word test on a text expression, the SQL form of wordMatcher. */
  private wordMatch(expression: string, needle: string, mode: MatchMode): string {
    const pattern = this.bind(wordPattern(needle, mode), 'String');
    return caseSensitive(mode) ? `match(${expression}, ${pattern})` : `match(lower(${expression}), ${pattern})`;
  }

  private compare(expression: string, test: FieldTest & { kind: 'compare' }): string {
    return `${expression} ${test.op} ${this.bind(test.value, 'Float64')}`;
  }

  private json(column: string, path: string[], test: FieldTest): string {
    const at = path.map((key) => this.bind(key, 'String')).join(', ');
    const type = `JSONType(${column}, ${at})`;
    const numeric = `${type} IN ${NUMERIC_JSON}`;
    const number = `JSONExtractFloat(${column}, ${at})`;
    const text = `if(${type} = 'String', JSONExtractString(${column}, ${at}), JSONExtractRaw(${column}, ${at}))`;
    const present = `JSONHas(${column}, ${at})`;
    switch (test.kind) {
      case 'exists':
        return present;
      case 'text':
        return `(${present} AND ${this.wordMatch(text, test.value, test.mode)})`;
      case 'equals':
        return `(${present} AND if(${numeric}, ${number} = ${this.bind(test.value, 'Float64')}, ${this.wordMatch(text, test.text, '=')}))`;
      case 'compare':
        return `(${numeric} AND ${this.compare(number, test)})`;
    }
  }

  private textColumn(expression: string, test: FieldTest): string {
    switch (test.kind) {
      case 'exists':
        return `${expression} != ''`;
      case 'text':
        return this.wordMatch(expression, test.value, test.mode);
      case 'equals':
        return this.wordMatch(expression, test.text, '=');
      case 'compare':
        return '0'; // refused by the parser; text is never a number
    }
  }

  private field(field: FieldRef, test: FieldTest): string {
    this.readsLines = true;
    switch (field.kind) {
      case 'builtin':
        if (field.name === 'tag') {
          return test.kind === 'exists' ? 'notEmpty(tags)' : `arrayExists(t -> ${this.textColumn('t', test)}, tags)`;
        }
        return this.textColumn(field.name, test);
      case 'size':
        if (test.kind === 'exists') return '1';
        if (test.kind === 'compare') return this.compare('size', test);
        if (test.kind === 'equals') return `size = ${this.bind(test.value, 'Float64')}`;
        return this.wordMatch('toString(size)', test.value, test.mode);
      case 'meta':
        return `(meta_indexed AND ${this.json('meta', field.path, test)})`;
      case 'json':
        return this.json('fields', field.path, test);
    }
  }

  /**
   * A search word or phrase, answered from the text index where it can be: whole tokens with
   * hasAllTokens, a trailing prefix with hasAnyTokens over the dictionary's tokens that start
   * with it. Both read only posting lists. The word-boundary match on the text itself is added
   * unless the tokens alone decide.
   *
   * The prefix's tokens come from the store when it expanded them first (bound as an array), or
   * else from a scalar subquery evaluated once before the scan. Bound is faster: over 10 million
   * lines the engine spent 8-10 ms analysing the subquery's form and up to 9 ms filtering marks by
   * the primary key beside it, against under 2 and 0.5 ms for an array (docs/performance.md).
   */
  private words(needle: string, mode: MatchMode): string {
    const { whole, prefix, decides } = indexTokens(needle, mode);
    // Where the tokens decide, the text is only read past MAX_PREFIX_TOKENS, which prefixes of one
    // or two characters are likely to reach. Those are also read as if they read lines when their
    // tokens are bound: the newest lines for the hundreds of tokens of `ti` come faster from the
    // store's widening windows than from one query over the range (52 against 97 ms over 10 M).
    if (!decides || (prefix !== null && prefix.length <= 2)) this.readsLines = true;
    const exact = this.wordMatch(SEARCH_TEXT, needle, mode);
    const tests: string[] = [];
    if (whole.length > 0) tests.push(`hasAllTokens(${INDEXED_TEXT}, ${this.bind(whole, 'Array(String)')})`);
    if (prefix !== null) {
      this.prefixes.add(prefix);
      const expansion = this.expansions?.get(prefix);
      if (expansion !== undefined && tooManyTokens(expansion)) {
        // Too many tokens start with it: the text is scanned.
        this.readsLines = true;
        return `(${[...tests, exact].join(' AND ')})`;
      }
      if (expansion !== undefined) {
        // No token starts with it: no line can match.
        if (expansion.length === 0) return '0';
        tests.push(`hasAnyTokens(${INDEXED_TEXT}, ${this.bind(expansion, 'Array(String)')})`);
      } else {
        const subquery = `(SELECT groupArray(token) FROM (${dictionaryTokens(this.bind(prefix, 'String'))}))`;
        const tooMany = `length(${subquery}) > ${MAX_PREFIX_TOKENS}`;
        const expanded = `hasAnyTokens(${INDEXED_TEXT}, ${subquery})`;
        if (decides) return `(${expanded} OR (${tooMany} AND ${exact}))`;
        tests.push(`(${expanded} OR ${tooMany})`);
      }
    }
    // Tokens decide only for a lone prefix or whole tokens, never both: one test.
    if (decides) return tests[0];
    return `(${[...tests, exact].join(' AND ')})`;
  }

  compile(node: QueryNode): string {
    switch (node.kind) {
      case 'all':
        return '1';
      case 'and':
        return `(${node.children.map((child) => this.compile(child)).join(' AND ')})`;
      case 'or':
        return `(${node.children.map((child) => this.compile(child)).join(' OR ')})`;
      case 'not':
        return `NOT ${this.compile(node.child)}`;
      case 'text':
        return this.words(node.value, node.mode);
      case 'field':
        return this.field(node.field, node.test);
      case 'in':
        this.readsLines = true;
        return `has(${this.bind(node.values, 'Array(String)')}, ${node.field})`;
    }
  }
}

/**
 * Compiles a query to a condition on the log table. Agrees with toPredicate on every line. Word
 * prefixes are expanded by subqueries, unless `expansions` gives their tokens; a condition with
 * prefixes says which, and compiles again with their tokens (SqlCondition.prefixes).
 */
export function toSql(node: QueryNode, expansions?: PrefixExpansions): SqlCondition {
  const compiler = new SqlCompiler(expansions);
  const sql = compiler.compile(node);
  const condition: SqlCondition = { sql, params: compiler.params, readsLines: compiler.readsLines };
  if (!expansions && compiler.prefixes.size > 0) {
    condition.prefixes = { words: [...compiler.prefixes], tokensSql: dictionaryTokens, expanded: (found) => toSql(node, found) };
  }
  return condition;
}
