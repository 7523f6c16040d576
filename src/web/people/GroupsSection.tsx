import { useState } from 'react';
import { type Group, api } from '../api-client/client.js';
import { GroupEditor } from './GroupEditor.js';
import { scopeLines, scopeText } from './scope.js';
import { apiProblem } from './usePeople.js';

/** The organisation's groups with their access scopes: create, edit and delete them. */
export function GroupsSection({ groups, onChanged }: { groups: Group[]; onChanged: () => Promise<void> }) {
  const [editing, setEditing] = useState<Group | 'new' | null>(null);
  const [problem, setProblem] = useState('');
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
      <p className="muted">A member of groups with access scopes sees only the lines that at least one of their groups’ scopes matches; a member of none sees every line.</p>
      {editing !== null && (
        <GroupEditor
          key={editing === 'new' ? 'new' : editing.groupId}
          group={editing === 'new' ? null : editing}
          onCancel={() => setEditing(null)}
          onSaved={async () => {
            setEditing(null);
            await onChanged();
          }}
        />
      )}
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
            {groups.map((group) => {
              const searches = scopeLines(scopeText(group.access_scopes));
              return (
                <tr key={group.groupId} data-testid="group-row">
                  <td>{group.name}</td>
                  <td>{searches.length ? <code>{searches.join('  |  ')}</code> : <span className="muted">no limit</span>}</td>
                  <td title={group.members.join(', ')}>{group.members.length}</td>
                  <td className="row-actions">
                    <button type="button" onClick={() => setEditing(group)} aria-label={`Edit group ${group.name}`}>
                      Edit
                    </button>
                    <button
                      type="button"
                      aria-label={`Delete group ${group.name}`}
                      onClick={async () => {
                        const members = group.members.length ? ` Its ${group.members.length} member(s) stay, without it.` : '';
                        if (!window.confirm(`Delete the group “${group.name}”?${members}`)) return;
                        setProblem('');
                        try {
                          await api.deleteGroup(group.groupId);
                        } catch (error) {
                          setProblem(apiProblem(error));
                        }
                        await onChanged();
                      }}
                    >
                      Delete
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
