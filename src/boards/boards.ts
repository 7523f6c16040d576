import { newId } from '../lib/ids.js';
import type { ConfigKysely } from '../repository/open.js';
import type { ConfigTables } from '../repository/tables.js';
import type { Graph } from '../wire/types.js';

/** A board as stored: its category by id (names are the categories API's). */
export interface StoredBoard {
  boardId: string;
  account: string;
  name: string;
  categoryId: string | null;
  graphs: Graph[];
  _created: string;
  _modified: string;
}

export interface BoardColumns {
  name: string;
  categoryId: string | null;
  graphs: Graph[];
}

const fromRow = (row: ConfigTables['boards']): StoredBoard => ({
  boardId: row.board_id,
  account: row.account,
  name: row.name,
  categoryId: row.category_id,
  graphs: JSON.parse(row.graphs),
  _created: row.created_at,
  _modified: row.modified_at,
});

const columns = (input: BoardColumns) => ({ name: input.name, category_id: input.categoryId, graphs: JSON.stringify(input.graphs) });

/**
 * Boards, stored whole in the configuration repository (SQLite or PostgreSQL), so that every node
 * of a cluster reads the same boards at once: a PUT replaces the board and all its graphs.
 */
export class Boards {
  constructor(private readonly db: ConfigKysely) {}

  async list(account: string): Promise<StoredBoard[]> {
    return (await this.db.selectFrom('boards').selectAll().where('account', '=', account).orderBy('created_at').orderBy('board_id').execute()).map(fromRow);
  }

  async get(account: string, boardId: string): Promise<StoredBoard | undefined> {
    const row = await this.db.selectFrom('boards').selectAll().where('account', '=', account).where('board_id', '=', boardId).executeTakeFirst();
    return row && fromRow(row);
  }

  async create(account: string, input: BoardColumns): Promise<StoredBoard> {
    const boardId = newId();
    const now = new Date().toISOString();
    await this.db.insertInto('boards').values({ board_id: boardId, account, ...columns(input), created_at: now, modified_at: now }).execute();
    return (await this.get(account, boardId))!;
  }

  async replace(account: string, boardId: string, input: BoardColumns): Promise<StoredBoard | undefined> {
    const changed = await this.db
      .updateTable('boards')
      .set({ ...columns(input), modified_at: new Date().toISOString() })
      .where('account', '=', account)
      .where('board_id', '=', boardId)
      .executeTakeFirst();
    return Number(changed.numUpdatedRows) ? this.get(account, boardId) : undefined;
  }

  async delete(account: string, boardId: string): Promise<boolean> {
    const deleted = await this.db.deleteFrom('boards').where('account', '=', account).where('board_id', '=', boardId).executeTakeFirst();
    return Number(deleted.numDeletedRows) > 0;
  }
}
