import { ApiError, errors } from '../../http/errors.js';
import { validate } from '../../http/validation.js';
import { type BoardBody, boardColumns, parseBoardBody, presentBoard } from '../../boards/board-routes.js';
import { Boards } from '../../boards/boards.js';
import { graphProblems, graphSchema } from '../../boards/graph.js';
import type { GraphSpec } from '../../wire/types.js';
import { SourceReadError } from '../source.js';
import { type ResourceKind, canonical, text, reasonOf } from './resource-kind.js';

/** Fields of a source's graph that are read; any other is reported. */
const GRAPH_FIELDS = ['graphId', 'title', 'query', 'apps', 'hosts', 'levels', 'tags', 'measure', 'breakdown'];

/**
 * A board's graphs, each checked alone by the routes' rules: a graph Logstead cannot draw (a
 * measure it lacks, a search that does not parse, a shape it does not know) is left behind with
 * its reason and the rest of the board still comes.
 */
function carryGraphs(raw: unknown, partly: (part: string, reason: string) => void): Array<GraphSpec & { graphId?: string }> {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    partly('graphs', 'not a list');
    return [];
  }
  const carried: Array<GraphSpec & { graphId?: string }> = [];
  raw.forEach((graph, index) => {
    const part = `graph ${index + 1}${graph && typeof graph === 'object' && typeof graph.title === 'string' ? ` (${graph.title})` : ''}`;
    if (!graph || typeof graph !== 'object' || Array.isArray(graph)) return partly(part, 'not an object');
    const dropped = Object.keys(graph).filter((field) => !GRAPH_FIELDS.includes(field));
    try {
      const checked = validate<GraphSpec & { graphId?: string }>(graphSchema, graph);
      const problems = graphProblems(checked, []);
      if (problems.length) throw errors.validationFailed(problems);
      carried.push(checked);
      if (dropped.length) partly(`${part}: ${dropped.join(', ')}`, 'Logstead graphs have no such settings');
    } catch (error) {
      if (!isApiError(error)) throw error;
      partly(part, reasonOf(error));
    }
  });
  return carried;
}

const isApiError = (error: unknown): error is ApiError => error instanceof ApiError;

/** Graphs as compared for "unchanged": without the ids a source may not give. */
const graphsWithoutIds = (graphs: Array<{ graphId?: string }>) => graphs.map(({ graphId: _id, ...graph }) => graph);

export const boards: ResourceKind<BoardBody> = {
  kind: 'board',
  // Mezmo's boards are known only from third-party clients, which name the title `title` and the id `boardid`.
  fields: { carried: ['name', 'title', 'category', 'graphs'], ignored: ['boardId', 'boardid', 'boardID', 'id', 'account', '_created', '_modified', 'created', 'modified'] },
  async read(source) {
    try {
      return await source.list('/v1/config/board');
    } catch (error) {
      // Mezmo's boards API is not documented: a source that does not answer it has no boards to carry.
      if (error instanceof SourceReadError && error.status === 404) return [];
      throw error;
    }
  },
  async readLocal(local) {
    return new Map((await new Boards(local.db).list(local.account)).map((board) => [board.name.trim(), board.boardId]));
  },
  key(item) {
    const name = (text(item.name) ?? text(item.title))?.trim();
    return name ? { key: name, name } : undefined;
  },
  check(item, context, partly) {
    // A board has one category, of type boards; one that is not carried over is left off.
    const named = Array.isArray(item.category) ? item.category.find((name) => typeof name === 'string' && name.trim() !== '') : text(item.category);
    let category: string | null = null;
    if (typeof named === 'string' && named.trim() !== '') {
      if (context.willExist.get('category')?.has(`boards/${named.trim().toLowerCase()}`)) category = named.trim();
      else partly(`category "${named}"`, 'the source did not list this category, or it is not carried over');
    }
    return parseBoardBody({ name: item.name ?? item.title, category, graphs: carryGraphs(item.graphs, partly) });
  },
  async create(input, local) {
    const store = new Boards(local.db);
    const created = await store.create(local.account, await boardColumns(local.account, input, local.categories));
    await local.record('board', 'create', created.boardId, null, await presentBoard(created, local.categories));
  },
  async unchanged(id, input, local) {
    const board = await new Boards(local.db).get(local.account, id);
    if (!board) return false;
    const wanted = await boardColumns(local.account, input, local.categories).catch(() => undefined);
    if (!wanted) return false; // a category still to be created: the board changes
    return canonical([wanted.name, wanted.categoryId, graphsWithoutIds(wanted.graphs)]) === canonical([board.name, board.categoryId, graphsWithoutIds(board.graphs)]);
  },
  async update(id, input, local) {
    const store = new Boards(local.db);
    const before = await store.get(local.account, id);
    // A graph the source gives no id keeps the id of the graph in its place, so links to it still work.
    const graphs = input.graphs.map((graph, at) => ({ ...graph, graphId: graph.graphId ?? before?.graphs[at]?.graphId }));
    const after = await store.replace(local.account, id, await boardColumns(local.account, { ...input, graphs }, local.categories));
    if (after) await local.record('board', 'update', id, before && (await presentBoard(before, local.categories)), await presentBoard(after, local.categories));
  },
};
