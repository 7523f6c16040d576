import type { ServiceAuth } from '../http/service-auth.js';
import type { Subsystem } from '../lib/subsystem.js';
import type { ConfigKysely } from '../repository/open.js';
import type { LogStore } from '../store/log-store.js';
import { Categories } from '../views/categories.js';
import { boardRoutes } from './board-routes.js';
import { Boards } from './boards.js';
import { chartRoutes } from './chart-routes.js';

/**
 * Boards of graphs (issue 40): their configuration API (/v1/config/board, grouped by the
 * categories of type `boards`) and the series of their graphs (/v1/board/.../data), with the
 * viewer's unsaved chart (/v1/viewer/chart).
 */
export function startBoards(deps: { db: ConfigKysely; auth: ServiceAuth; store: LogStore }): Subsystem {
  const boards = new Boards(deps.db);
  const categories = new Categories(deps.db);
  return {
    routes: async (app) => {
      await app.register(boardRoutes, { auth: deps.auth, boards, categories });
      await app.register(chartRoutes, { auth: deps.auth, store: deps.store, boards });
    },
    close: async () => {},
  };
}
