import type { ServiceAuth } from '../http/service-auth.js';
import type { Accounts } from '../accounts/accounts.js';
import type { Categories } from './categories.js';
import type { DeliveryAbilities } from './channel-warnings.js';
import type { Presets } from './presets.js';
import type { Views } from './views.js';

/** What the configuration API's routes work on. */
export interface ConfigDeps {
  auth: ServiceAuth;
  accounts: Accounts;
  views: Views;
  presets: Presets;
  categories: Categories;
  /** What deliveries can do here, for the warnings a saved view gets. */
  delivery: DeliveryAbilities;
}
