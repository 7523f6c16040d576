import { ApiError, type Board, type GraphSpec, api } from '../api-client/client.js';
import { boardInput } from './graph-form.js';

/**
 * Creates a board, first creating its category when it is new (the server takes only a known
 * category's name, as Mezmo does). A category created meanwhile by someone else is no failure.
 */
export async function createBoard(name: string, category: string | null, graphs: GraphSpec[], known: string[]): Promise<Board> {
  if (category && !known.some((existing) => existing.toLowerCase() === category.toLowerCase())) {
    await api.createBoardCategory(category).catch((failure) => {
      if (!(failure instanceof ApiError && failure.status === 409)) throw failure;
    });
  }
  return api.saveBoard(undefined, { name, category, graphs });
}

/** Adds a graph to a board as it is now on the server, so a graph someone else added meanwhile stays. */
export async function addGraph(boardId: string, graph: GraphSpec): Promise<Board> {
  const board = await api.board(boardId);
  return api.saveBoard(boardId, boardInput(board, [...board.graphs, graph]));
}
