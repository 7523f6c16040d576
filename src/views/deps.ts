import type { ServiceAuth } from '../http/service-auth.js';
import type { Categories } from './categories.js';
import type { DeliveryAbilities } from './channel-warnings.js';
import type { Presets } from './presets.js';
import type { SetterDirectory } from './setters.js';
import type { ViewVolume } from './setter-warnings.js';
import type { Views } from './views.js';

/** What the routes of views, preset alerts and categories work on. */
export interface ViewRoutesDeps {
  auth: ServiceAuth;
  views: Views;
  presets: Presets;
  categories: Categories;
  /** What deliveries can do here, for the warnings a saved view gets. */
  delivery: DeliveryAbilities;
  /** Where channels' setters are read (the members). */
  setters: SetterDirectory;
  /** The last day's lines of a view inside some scopes, to tell when an alert's setter sees none of them. */
  volume: ViewVolume;
}
