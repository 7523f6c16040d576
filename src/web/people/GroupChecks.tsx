import type { Group } from '../api-client/client.js';

/** A menu of the organisation's groups with a check box each, summarised by the names chosen. */
export function GroupChecks({ label, groups, chosen, onChange, disabled = false }: { label: string; groups: Group[]; chosen: string[]; onChange: (ids: string[]) => void; disabled?: boolean }) {
  const names = groups.filter((group) => chosen.includes(group.groupId)).map((group) => group.name);
  return (
    <details className="menu group-checks">
      <summary aria-label={`${label}: ${names.join(', ') || 'none'}`}>{names.join(', ') || 'No groups'}</summary>
      <div className="menu-body" role="group" aria-label={label}>
        {groups.length === 0 && <span className="muted">No groups yet: create one below.</span>}
        {groups.map((group) => (
          <label key={group.groupId} className="inline">
            <input
              type="checkbox"
              disabled={disabled}
              checked={chosen.includes(group.groupId)}
              onChange={(e) => onChange(e.target.checked ? [...chosen, group.groupId] : chosen.filter((id) => id !== group.groupId))}
            />
            {group.name}
          </label>
        ))}
      </div>
    </details>
  );
}
