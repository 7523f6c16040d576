import type { Session } from '../api-client/client.js';
import { BoardPage } from '../boards/BoardPage.js';
import { BoardsPage } from '../boards/BoardsPage.js';
import { SessionControls } from '../session/SessionControls.js';
import { ZoneContext, useZoneChoice } from '../shared/time-zone.js';
import { Viewer } from '../Viewer.js';
import { Link } from '../navigation/Link.js';
import { MainNav } from './MainNav.js';
import { type Route } from '../navigation/routes.js';
import { SettingsPage } from './SettingsPage.js';
import { useRoute } from '../navigation/useRoute.js';
import './shell.css';

/** The signed-in viewer: the navigation and the reader's own controls on top, and the page the address names below. */
export function Shell({ session, onSignOut }: { session: Session; onSignOut: () => void }) {
  const route = useRoute();
  const { zone, setZone } = useZoneChoice();
  return (
    <ZoneContext.Provider value={zone}>
      <div className="shell" data-page={route.page}>
        <header className="shell-bar">
          <Link to="/" className="brand">
            Logstead
          </Link>
          <MainNav route={route} />
          <span className="shell-bar-end">
            <SessionControls session={session} zone={zone} onZone={setZone} onSignOut={onSignOut} />
          </span>
        </header>
        <div className="shell-page">
          <Page session={session} route={route} />
        </div>
      </div>
    </ZoneContext.Provider>
  );
}

function Page({ session, route }: { session: Session; route: Route }) {
  switch (route.page) {
    case 'search':
      return <Viewer session={session} />;
    case 'boards':
      return <BoardsPage session={session} />;
    case 'board':
      return <BoardPage key={route.boardId} session={session} boardId={route.boardId} />;
    case 'settings':
      return <SettingsPage session={session} section={route.section} />;
    case 'unknown':
      return (
        <main className="not-found" data-testid="not-found">
          <h2>No page here</h2>
          <p>
            The viewer has no page at <code>{route.path}</code>. <Link to="/">Go to the search</Link>.
          </p>
        </main>
      );
  }
}
