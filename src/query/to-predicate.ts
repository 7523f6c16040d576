import type { FieldRef, FieldTest, QueryNode } from './ast.js';
import { type SearchableLine, anySearchedPart, searchText } from './searchable.js';
import { wordMatcher } from './text-match.js';
import { parseStoredJson } from '../store/export-record.js';

export type LinePredicate = (line: SearchableLine) => boolean;

/** Per-line work done once however many leaves ask for it. */
interface Prepared {
  meta?: unknown;
  fields?: unknown;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

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

/** A field test compiled once: its word test, if any, is a compiled pattern (text-match.ts). */
function valueTester(test: FieldTest): (value: unknown) => boolean {
  switch (test.kind) {
    case 'exists':
      return (value) => value !== undefined;
    case 'text': {
      const matches = wordMatcher(test.value, test.mode);
      return (value) => value !== undefined && matches(valueText(value));
    }
    case 'equals': {
      const matches = wordMatcher(test.text, '=');
      return (value) => value !== undefined && (typeof value === 'number' ? value === test.value : matches(valueText(value)));
    }
    case 'compare': {
      const { op, value: bound } = test;
      return (value) => typeof value === 'number' && (op === '>' ? value > bound : op === '>=' ? value >= bound : op === '<' ? value < bound : value <= bound);
    }
  }
}

/** The same for a text column, where "exists" means not empty. */
function textTester(test: FieldTest): (text: string) => boolean {
  return test.kind === 'exists' ? (text) => text !== '' : valueTester(test);
}

function fieldMatcher(field: FieldRef, test: FieldTest): (line: SearchableLine, prepared: Prepared) => boolean {
  const testValue = valueTester(test);
  switch (field.kind) {
    case 'builtin': {
      if (field.name === 'tag') {
        return (line) => (test.kind === 'exists' ? line.tags.length > 0 : line.tags.some(testValue));
      }
      const name = field.name;
      const testText = textTester(test);
      return (line) => testText(line[name]);
    }
    case 'size':
      return (line) => testValue(line.size);
    case 'meta':
      return (line, prepared) => {
        if (!line.meta_indexed) return false;
        if (!('meta' in prepared)) prepared.meta = parseStoredJson(line.meta);
        return testValue(at(prepared.meta, field.path));
      };
    case 'json':
      return (line, prepared) => {
        if (!('fields' in prepared)) prepared.fields = parseStoredJson(line.fields);
        return testValue(at(prepared.fields, field.path));
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
    case 'text': {
      const matches = wordMatcher(node.value, node.mode);
      // Decided once per query: only a needle with a line break needs the parts joined.
      return node.value.includes('\n') ? (line) => matches(searchText(line)) : (line) => anySearchedPart(line, matches);
    }
    case 'field':
      return fieldMatcher(node.field, node.test);
    case 'in': {
      const values = new Set(node.values);
      const field = node.field;
      return (line) => values.has(line[field]);
    }
  }
}

/** Compiles a query for lines in memory (live tail, alerts). Agrees with toSql on every line. */
export function toPredicate(node: QueryNode): LinePredicate {
  const matcher = compile(node);
  return (line) => matcher(line, {});
}
