import type { Session } from '../api-client/client.js';
import { GroupsSection } from './GroupsSection.js';
import { MembersSection } from './MembersSection.js';
import { usePeople } from './usePeople.js';

/** Members and groups, for admins and owners: who may do what, and which lines each group sees. */
export function PeoplePage({ session, onClose }: { session: Session; onClose: () => void }) {
  const { members, groups, loaded, error, reload } = usePeople();
  return (
    <div className="modal" role="dialog" aria-modal="true" aria-label="Members and groups" onKeyDown={(event) => event.key === 'Escape' && onClose()}>
      <div className="modal-body wide people-page" data-testid="people-page">
        <header className="modal-header">
          <h2>Members and groups</h2>
          <button type="button" onClick={onClose}>
            Close
          </button>
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
    </div>
  );
}
