import Joi from 'joi';
import { errors } from '../http/errors.js';
import { fieldLabel } from '../http/field-labels.js';
import { validate } from '../http/validation.js';
import type { FieldRef } from '../query/ast.js';
import { QueryParseError, fieldByName, parseQuery } from '../query/parser.js';
import type { ChartField } from '../store/chart-series.js';
import type { GraphSpec, MeasureType } from '../wire/types.js';

/*
 * A graph as clients send it, checked whole: its shape (Joi, with Joi's messages as the API's
 * other validation errors have them), then what Joi cannot know: that its query is a search,
 * that its fields are names search accepts, and that a number measure does not name a text field.
 * Boards, the viewer's "chart this" and the importer all check graphs here.
 */

export const MEASURE_TYPES = ['count', 'sum', 'avg', 'min', 'max', 'unique', 'p50', 'p90', 'p95', 'p99'] as const satisfies readonly MeasureType[];
/** Each graph is a query over the lines when the board opens: a bound keeps a board's cost bounded. */
export const MAX_GRAPHS = 30;
/** Series beyond a few dozen cannot be told apart on a chart, and each is a value the engine matches per line. */
export const MAX_BREAKDOWN = 20;
export const DEFAULT_BREAKDOWN = 5;

const list = Joi.array().items(Joi.string().max(512)).max(1000).default([]);
const fieldName = Joi.string().trim().min(1).max(256);

/** A graph's keys; `title` is required on a board and optional in a chart. */
const graphKeys = {
  graphId: Joi.string().pattern(/^[A-Za-z0-9_-]{1,64}$/).messages({ 'string.pattern.base': '"{#label}" must be 1 to 64 letters, digits, "-" or "_"' }),
  title: Joi.string().trim().min(1).max(512).required(),
  query: Joi.string().allow('').max(10_000).default(''),
  apps: list,
  hosts: list,
  levels: list,
  tags: list,
  measure: Joi.object({ type: Joi.string().valid(...MEASURE_TYPES).required(), field: fieldName }).required(),
  breakdown: Joi.object({ field: fieldName.required(), limit: Joi.number().integer().min(1).max(MAX_BREAKDOWN).default(DEFAULT_BREAKDOWN) }),
};

export const graphSchema = Joi.object(graphKeys);
export const chartGraphSchema = Joi.object({ ...graphKeys, graphId: Joi.forbidden(), title: graphKeys.title.optional() });

type Detail = { message: string; key: string; field: string };
const detail = (path: Array<string | number>, message: string): Detail => {
  const key = path.map((part, at) => (typeof part === 'number' ? `[${part}]` : at === 0 ? part : `.${part}`)).join('');
  return { message: `"${key}" ${message}`, key, field: fieldLabel(path) };
};

/** A field name as a graph may use it, or why not. */
function chartFieldRef(name: string): FieldRef | string {
  const ref = fieldByName(name);
  if (!ref) return `must be a field name as search writes it (status, meta.customer, app), not "${name}"`;
  if (ref.kind === 'builtin' && ref.name === 'tag') return 'cannot be "tag": a line has a list of tags; filter the graph by tags instead';
  return ref;
}

/** What Joi cannot check of a graph at `path` (['graphs', 2] on a board, [] for a chart). */
export function graphProblems(graph: GraphSpec, path: Array<string | number>): Detail[] {
  const problems: Detail[] = [];
  const { measure, breakdown } = graph;
  if (measure.type !== 'count') {
    if (measure.field === undefined) problems.push(detail([...path, 'measure', 'field'], `is required: the measure "${measure.type}" is taken of a field`));
    else {
      const ref = chartFieldRef(measure.field);
      if (typeof ref === 'string') problems.push(detail([...path, 'measure', 'field'], ref));
      else if (measure.type !== 'unique' && ref.kind === 'builtin') {
        problems.push(detail([...path, 'measure', 'field'], `is "${measure.field}", which holds text: the measure "${measure.type}" needs a number field (unique counts text)`));
      }
    }
  }
  if (breakdown) {
    const ref = chartFieldRef(breakdown.field);
    if (typeof ref === 'string') problems.push(detail([...path, 'breakdown', 'field'], ref));
  }
  if (graph.query) {
    try {
      parseQuery(graph.query);
    } catch (error) {
      if (!(error instanceof QueryParseError)) throw error;
      problems.push(detail([...path, 'query'], `is not a valid search: ${error.message}`));
    }
  }
  return problems;
}

/** The graph as kept: a count's field, which it does not use, is dropped. */
export function normaliseGraph<T extends GraphSpec>(graph: T): T {
  const measure = graph.measure.type === 'count' ? { type: 'count' as const } : graph.measure;
  return { ...graph, measure };
}

/** Checks a chart request's graph (POST /v1/viewer/chart); the title defaults to what it measures. */
export function parseChartGraph(raw: Record<string, unknown>): GraphSpec {
  const { from: _from, to: _to, buckets: _buckets, ...rest } = raw;
  const graph = validate<GraphSpec>(chartGraphSchema, rest);
  const problems = graphProblems(graph, []);
  if (problems.length) throw errors.validationFailed(problems);
  return normaliseGraph({ ...graph, title: graph.title ?? measureLabel(graph.measure) });
}

/** "count", "p95(duration)": a graph's name when it has no title. */
export const measureLabel = (measure: GraphSpec['measure']) => (measure.type === 'count' ? 'count' : `${measure.type}(${measure.field})`);

/** The store's reading of a graph's (checked) field. */
export function chartField(name: string): ChartField {
  const ref = fieldByName(name);
  if (!ref) throw new Error(`graph: "${name}" was not checked`);
  switch (ref.kind) {
    case 'builtin':
      if (ref.name === 'tag') throw new Error('graph: a tag field was not checked');
      return { kind: 'column', column: ref.name };
    case 'size':
      return { kind: 'size' };
    case 'meta':
      return { kind: 'json', column: 'meta', path: ref.path };
    case 'json':
      return { kind: 'json', column: 'fields', path: ref.path };
  }
}
