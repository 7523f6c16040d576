import { useEffect } from 'react';
import type { Session } from '../api-client/client.js';
import { ArchivePage } from '../archive/ArchivePage.js';
import { AuditPage } from '../audit/AuditPage.js';
import { ExclusionsPage } from '../ingestion/ExclusionsPage.js';
import { KeysPage } from '../keys/KeysPage.js';
import { ParsersPage } from '../parsers/ParsersPage.js';
import { PeoplePage } from '../people/PeoplePage.js';
import { UsagePage } from '../usage/UsagePage.js';
import { Link } from '../navigation/Link.js';
import type { SettingsSection } from '../navigation/routes.js';
import { SECTION_INFO, sectionsFor } from './settings-sections.js';
import { navigate } from '../navigation/useRoute.js';

/** The settings: a menu of the pages the reader may open, beside the one at the address. */
export function SettingsPage({ session, section }: { session: Session; section: SettingsSection | null }) {
  const allowed = sectionsFor(session);
  // `/settings` alone opens the first page the reader may use, in place of the bare address.
  useEffect(() => {
    if (section === null && allowed.length) navigate(`/settings/${allowed[0]}`, { replace: true });
  }, [section, allowed[0]]);
  return (
    <div className="settings">
      <nav className="settings-nav" aria-label="Settings">
        <h2>Settings</h2>
        {allowed.map((item) => (
          <Link key={item} to={`/settings/${item}`} aria-current={item === section ? 'page' : undefined} title={SECTION_INFO[item].about} data-testid={`settings-${item}`}>
            {SECTION_INFO[item].label}
          </Link>
        ))}
      </nav>
      <div className="settings-main">{section && (allowed.includes(section) ? <Section session={session} section={section} /> : <Refused section={section} />)}</div>
    </div>
  );
}

function Section({ session, section }: { session: Session; section: SettingsSection }) {
  switch (section) {
    case 'members':
      return <PeoplePage session={session} />;
    case 'keys':
      return <KeysPage />;
    case 'parsing':
      return <ParsersPage session={session} />;
    case 'exclusions':
      return <ExclusionsPage />;
    case 'archive':
      return <ArchivePage session={session} />;
    case 'usage':
      return <UsagePage />;
    case 'audit':
      return <AuditPage />;
  }
}

/** An admin's page at its address, opened by a lower role: said plainly (the server would refuse its calls). */
function Refused({ section }: { section: SettingsSection }) {
  return (
    <section className="settings-page" aria-label={SECTION_INFO[section].label}>
      <p className="refused" role="alert" data-testid="settings-refused">
        {SECTION_INFO[section].label} is for admins and owners. Ask one of them if you need a change here.
      </p>
    </section>
  );
}
