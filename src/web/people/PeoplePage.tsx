import type { Session } from '../api-client/client.js';
import { GroupsSection } from './GroupsSection.js';
import { MembersSection } from './MembersSection.js';
import { usePeople } from './usePeople.js';

/** Members and groups, for admins and owners: who may do what, and which lines each group sees. */
export function PeoplePage({ session }: { session: Session }) {
  const { members, groups, loaded, error, reload } = usePeople();
  return (
    <section className="settings-page" aria-label="Members and groups">
      <div className="settings-body people-page" data-testid="people-page">
        <header className="settings-header">
          <h2>Members and groups</h2>
        </header>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        {!loaded && <p className="muted">Loading…</p>}
        {loaded && (
          <>
            <MembersSection session={session} members={members} groups={groups} onChanged={reload} />
            <GroupsSection groups={groups} onChanged={reload} />
          </>
        )}
      </div>
    </section>
  );
}
