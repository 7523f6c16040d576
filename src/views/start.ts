import type { ServiceAuth } from '../http/service-auth.js';
import type { Subsystem } from '../lib/subsystem.js';
import type { ConfigKysely } from '../repository/open.js';
import { Categories } from './categories.js';
import { categoryRoutes } from './category-routes.js';
import type { DeliveryAbilities } from './channel-warnings.js';
import { presetRoutes } from './preset-routes.js';
import type { SetterDirectory } from './setters.js';
import type { ViewVolume } from './setter-warnings.js';
import { Presets } from './presets.js';
import { viewRoutes } from './view-routes.js';
import { Views } from './views.js';

export interface ViewsSubsystem extends Subsystem {
  views: Views;
  presets: Presets;
}

/**
 * Views (saved searches) with their alert channels, preset alerts and categories, and the
 * configuration API that serves them: /v1/config/view, /v1/config/presetalert, /v1/config/categories.
 */
export function startViews(deps: { db: ConfigKysely; auth: ServiceAuth; delivery: DeliveryAbilities; setters: SetterDirectory; volume: ViewVolume }): ViewsSubsystem {
  const views = new Views(deps.db);
  const presets = new Presets(deps.db);
  const routesDeps = { auth: deps.auth, views, presets, categories: new Categories(deps.db), delivery: deps.delivery, setters: deps.setters, volume: deps.volume };
  return {
    views,
    presets,
    routes: async (app) => {
      await app.register(viewRoutes, routesDeps);
      await app.register(presetRoutes, routesDeps);
      await app.register(categoryRoutes, routesDeps);
    },
    close: async () => {},
  };
}
