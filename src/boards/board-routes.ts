import Joi from 'joi';
import type { FastifyInstance } from 'fastify';
import { errors } from '../http/errors.js';
import { fieldLabel } from '../http/field-labels.js';
import type { ServiceAuth } from '../http/service-auth.js';
import { validate } from '../http/validation.js';
import { newId } from '../lib/ids.js';
import type { Categories } from '../views/categories.js';
import type { Board, Graph, GraphSpec } from '../wire/types.js';
import type { BoardColumns, Boards, StoredBoard } from './boards.js';
import { MAX_GRAPHS, graphProblems, graphSchema, normaliseGraph } from './graph.js';

export interface BoardRoutesDeps {
  auth: ServiceAuth;
  boards: Boards;
  categories: Categories;
}

const boardSchema = Joi.object({
  name: Joi.string().trim().min(1).max(512).required(),
  category: Joi.string().trim().allow('', null).max(256),
  graphs: Joi.array().items(graphSchema).max(MAX_GRAPHS).default([]),
});

/** A board as a client sends it, checked: graphs keep the ids they were sent with. */
export interface BoardBody {
  name: string;
  category?: string | null;
  graphs: Array<GraphSpec & { graphId?: string }>;
}

/**
 * Checks a board as a client sends it (POST or PUT body) without touching the store: its shape,
 * each graph (graph.ts), and that no two graphs share an id. Its category is resolved by the
 * caller. Shared with the importer (import-mezmo), so an imported board passes the same rules.
 */
export function parseBoardBody(raw: unknown): BoardBody {
  const body = validate<BoardBody>(boardSchema, raw);
  const problems = body.graphs.flatMap((graph, at) => graphProblems(graph, ['graphs', at]));
  const seen = new Set<string>();
  body.graphs.forEach((graph, at) => {
    if (graph.graphId === undefined) return;
    if (seen.has(graph.graphId)) {
      const key = `graphs[${at}].graphId`;
      problems.push({ message: `"${key}" is the id of another graph of this board`, key, field: fieldLabel(['graphs', at, 'graphId']) });
    }
    seen.add(graph.graphId);
  });
  if (problems.length) throw errors.validationFailed(problems);
  return { ...body, graphs: body.graphs.map(normaliseGraph) };
}

/** What the store keeps of a checked board: its category's id (an unknown name is refused), each graph with an id. */
export async function boardColumns(account: string, body: BoardBody, categories: Categories): Promise<BoardColumns> {
  const category = body.category?.trim();
  const [categoryId] = category ? await categories.idsForNames(account, [category], 'boards') : [null];
  const graphs: Graph[] = body.graphs.map((graph) => ({ ...graph, graphId: graph.graphId ?? newId() }));
  return { name: body.name, categoryId, graphs };
}

/** A board as clients read it, its category by name (a category deleted since reads as none). */
export async function presentBoard(board: StoredBoard, categories: Categories): Promise<Board> {
  const [category] = board.categoryId ? await categories.namesForIds(board.account, [board.categoryId], 'boards') : [];
  return { boardId: board.boardId, name: board.name, category: category ?? null, graphs: board.graphs, _created: board._created, _modified: board._modified };
}

/**
 * The boards configuration API, as Mezmo's `/v1/config/board`: reading as views are read,
 * writing as views are written (members and above), every change in the audit trail.
 */
export async function boardRoutes(app: FastifyInstance, deps: BoardRoutesDeps): Promise<void> {
  const { auth, boards, categories } = deps;

  app.get('/v1/config/board', { config: { permission: 'read' } }, async (request): Promise<Board[]> => {
    const account = await auth.account(request);
    return Promise.all((await boards.list(account)).map((board) => presentBoard(board, categories)));
  });

  app.get<{ Params: { boardId: string } }>('/v1/config/board/:boardId', { config: { permission: 'read' } }, async (request): Promise<Board> => {
    const account = await auth.account(request);
    const board = await boards.get(account, request.params.boardId);
    if (!board) throw errors.notFound('No such board.');
    return presentBoard(board, categories);
  });

  app.post('/v1/config/board', { config: { permission: 'write', audit: 'board' } }, async (request): Promise<Board> => {
    const account = await auth.account(request);
    const columns = await boardColumns(account, parseBoardBody(request.body), categories);
    return presentBoard(await boards.create(account, columns), categories);
  });

  app.put<{ Params: { boardId: string } }>('/v1/config/board/:boardId', { config: { permission: 'write', audit: 'board' } }, async (request): Promise<Board> => {
    const account = await auth.account(request);
    // Checked before it is looked up, so a bad body is a 400 whether or not the board exists.
    const body = parseBoardBody(request.body);
    if (!(await boards.get(account, request.params.boardId))) throw errors.notFound('No such board.');
    const replaced = await boards.replace(account, request.params.boardId, await boardColumns(account, body, categories));
    if (!replaced) throw errors.notFound('No such board.');
    return presentBoard(replaced, categories);
  });

  app.delete<{ Params: { boardId: string } }>('/v1/config/board/:boardId', { config: { permission: 'write', audit: 'board' } }, async (request) => {
    const account = await auth.account(request);
    if (!(await boards.delete(account, request.params.boardId))) throw errors.notFound('No such board.');
    return { deleted: true };
  });
}
