import { useState } from 'react';
import { type Group, api } from '../api-client/client.js';
import { AdmitsNote } from './AdmitsNote.js';
import { GroupEditor } from './GroupEditor.js';
import { scopeLines, scopeText } from './scope.js';
import { apiProblem } from './usePeople.js';
import { sendWidening } from './widening.js';

/** The organisation's groups with their access scopes: create, edit and delete them. */
export function GroupsSection({ groups, onChanged }: { groups: Group[]; onChanged: () => Promise<void> }) {
  const [editing, setEditing] = useState<Group | 'new' | null>(null);
  const [saved, setSaved] = useState<Group | null>(null);
  const [problem, setProblem] = useState('');

  const remove = async (group: Group) => {
    const members = group.members.length ? ` Its ${group.members.length} member(s) stay, without it.` : '';
    if (!window.confirm(`Delete the group “${group.name}”?${members}`)) return;
    setProblem('');
    setSaved(null);
    try {
      // A group that scopes members is refused first, naming them; they are asked about before it goes.
      await sendWidening(`Deleting the group “${group.name}”`, (widen) => api.deleteGroup(group.groupId, widen));
    } catch (error) {
      setProblem(apiProblem(error));
    }
    await onChanged();
  };

  return (
    <section aria-labelledby="groups-heading" className="people-section">
      <div className="section-header">
        <h3 id="groups-heading">Groups</h3>
        {editing === null && (
          <button type="button" onClick={() => setEditing('new')} data-testid="new-group">
            New group
          </button>
        )}
      </div>
      <p className="muted">
        A member of groups with access scopes sees only the lines that at least one of their groups’ scopes matches; a member of none sees every line. Only an owner changes the scope of a group an owner is in.
      </p>
      {editing !== null && (
        <GroupEditor
          key={editing === 'new' ? 'new' : editing.groupId}
          group={editing === 'new' ? null : editing}
          onCancel={() => setEditing(null)}
          onSaved={async (group) => {
            setEditing(null);
            setSaved(group);
            await onChanged();
          }}
        />
      )}
      {saved && editing === null && <AdmitsNote group={saved} />}
      {problem && (
        <p className="error" role="alert">
          {problem}
        </p>
      )}
      {groups.length === 0 ? (
        <p className="muted">No groups yet.</p>
      ) : (
        <table className="people-table" data-testid="groups">
          <thead>
            <tr>
              <th>Name</th>
              <th>Access scope</th>
              <th>Members</th>
              <th>
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {groups.map((group) => (
              <tr key={group.groupId} data-testid="group-row">
                <td>{group.name}</td>
                <td>
                  <GroupScope group={group} />
                </td>
                <td title={group.members.join(', ')}>{group.members.length}</td>
                <td className="row-actions">
                  <button type="button" onClick={() => setEditing(group)} aria-label={`Edit group ${group.name}`}>
                    Edit
                  </button>
                  <button type="button" aria-label={`Delete group ${group.name}`} onClick={() => void remove(group)}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** A group's searches, and its exact lists when it has them; "no limit" when it has neither. */
function GroupScope({ group }: { group: Group }) {
  const searches = scopeLines(scopeText(group.access_scopes));
  const lists = [group.apps?.length ? `apps: ${group.apps.join(', ')}` : '', group.hosts?.length ? `hosts: ${group.hosts.join(', ')}` : ''].filter(Boolean);
  if (searches.length === 0 && lists.length === 0) return <span className="muted">no limit</span>;
  return <code>{[searches.join('  |  '), ...lists].filter(Boolean).join('  ·  ')}</code>;
}
