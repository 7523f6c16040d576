import type { FieldRef, FieldTest, QueryNode } from './ast.js';
import { type SearchableLine, searchText } from './searchable.js';
import { wordMatch } from './text-match.js';

export type LinePredicate = (line: SearchableLine) => boolean;

/** Per-line work done once however many leaves ask for it. */
interface Prepared {
  meta?: unknown;
  fields?: unknown;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The value at a path, descending through objects only, or undefined when the path is absent. */
function at(root: unknown, path: string[]): unknown {
  let value = root;
  for (const key of path) {
    if (!isPlainObject(value) || !Object.prototype.hasOwnProperty.call(value, key)) return undefined;
    value = value[key];
  }
  return value;
}

/** A JSON value as searchable text: strings as they are, anything else as its JSON. */
const valueText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function testValue(value: unknown, test: FieldTest): boolean {
  if (value === undefined) return false;
  switch (test.kind) {
    case 'exists':
      return true;
    case 'text':
      return wordMatch(valueText(value), test.value, test.mode);
    case 'equals':
      return typeof value === 'number' ? value === test.value : wordMatch(valueText(value), test.text, '=');
    case 'compare':
      if (typeof value !== 'number') return false;
      return test.op === '>' ? value > test.value : test.op === '>=' ? value >= test.value : test.op === '<' ? value < test.value : value <= test.value;
  }
}

function testText(text: string, test: FieldTest): boolean {
  return test.kind === 'exists' ? text !== '' : testValue(text, test);
}

function fieldMatcher(field: FieldRef, test: FieldTest): (line: SearchableLine, prepared: Prepared) => boolean {
  switch (field.kind) {
    case 'builtin':
      if (field.name === 'tag') {
        return (line) => (test.kind === 'exists' ? line.tags.length > 0 : line.tags.some((tag) => testValue(tag, test)));
      }
      const name = field.name;
      return (line) => testText(line[name], test);
    case 'size':
      return (line) => testValue(line.size, test);
    case 'meta':
      return (line, prepared) => {
        if (!line.meta_indexed) return false;
        if (!('meta' in prepared)) prepared.meta = parseJson(line.meta);
        return testValue(at(prepared.meta, field.path), test);
      };
    case 'json':
      return (line, prepared) => {
        if (!('fields' in prepared)) prepared.fields = parseJson(line.fields);
        return testValue(at(prepared.fields, field.path), test);
      };
  }
}

function compile(node: QueryNode): (line: SearchableLine, prepared: Prepared) => boolean {
  switch (node.kind) {
    case 'all':
      return () => true;
    case 'and': {
      const children = node.children.map(compile);
      return (line, prepared) => children.every((child) => child(line, prepared));
    }
    case 'or': {
      const children = node.children.map(compile);
      return (line, prepared) => children.some((child) => child(line, prepared));
    }
    case 'not': {
      const child = compile(node.child);
      return (line, prepared) => !child(line, prepared);
    }
    case 'text':
      return (line) => wordMatch(searchText(line), node.value, node.mode);
    case 'field':
      return fieldMatcher(node.field, node.test);
  }
}

/** Compiles a query for lines in memory (live tail, alerts). Agrees with toSql on every line. */
export function toPredicate(node: QueryNode): LinePredicate {
  const matcher = compile(node);
  return (line) => matcher(line, {});
}
