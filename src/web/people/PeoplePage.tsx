import type { Session } from '../api-client/client.js';
import { GroupsSection } from './GroupsSection.js';
import { MembersSection } from './MembersSection.js';
import { usePeople } from './usePeople.js';
import { SettingsFrame } from '../shared/SettingsFrame.js';

/** Members and groups, for admins and owners: who may do what, and which lines each group sees. */
export function PeoplePage({ session }: { session: Session }) {
  const { members, groups, loaded, error, reload } = usePeople();
  return (
    <SettingsFrame title="Members and groups" name="people">
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
    </SettingsFrame>
  );
}
