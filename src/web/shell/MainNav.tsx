import { type Route, navItemOf } from '../navigation/routes.js';
import { Link } from '../navigation/Link.js';
import { useSearchPath } from '../navigation/useRoute.js';

/** The viewer's main navigation: the search, the boards and the settings; the current one is marked. */
export function MainNav({ route }: { route: Route }) {
  const current = navItemOf(route);
  const searchPath = useSearchPath();
  const items = [
    { item: 'search', label: 'Search', to: searchPath },
    { item: 'boards', label: 'Boards', to: '/boards' },
    { item: 'settings', label: 'Settings', to: '/settings' },
  ] as const;
  return (
    <nav className="main-nav" aria-label="Main">
      {items.map(({ item, label, to }) => (
        <Link key={item} to={to} data-testid={`nav-${item}`} aria-current={current === item ? 'page' : undefined}>
          {label}
        </Link>
      ))}
    </nav>
  );
}
