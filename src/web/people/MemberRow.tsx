import { useEffect, useState } from 'react';
import { type Group, type Member, type Role, type Session, api } from '../api-client/client.js';
import { GIVEN_ROLES } from '../session/roles.js';
import { GroupChecks } from './GroupChecks.js';
import { sendWidening } from './widening.js';

export interface RowProps {
  member: Member;
  session: Session;
  groups: Group[];
  change: (work: () => Promise<unknown>) => Promise<void>;
}

/** One member. A role or groups chosen show at once, while sent; the list read afterwards says what the server kept. */
export function MemberRow({ member, session, groups, change }: RowProps) {
  const [role, setRole] = useState<Role>(member.role);
  const [memberGroups, setMemberGroups] = useState(member.groups);
  // Each reading of the list is a new object: a refused change is undone there too.
  useEffect(() => {
    setRole(member.role);
    setMemberGroups(member.groups);
  }, [member]);
  // Only an owner may change an owner (the server refuses anyone else); owner itself is given only by an operator.
  const mayChange = member.role !== 'owner' || session.role === 'owner' || session.role === undefined;
  return (
    <tr data-testid="member-row" data-email={member.email}>
      <td>
        {member.email}
        {member.email === session.email && <span className="muted"> (you)</span>}
      </td>
      <td>
        <select
          aria-label={`Role of ${member.email}`}
          value={role}
          disabled={!mayChange}
          title={mayChange ? undefined : 'Only an owner may change an owner.'}
          onChange={(e) => {
            const chosen = e.target.value as Role;
            setRole(chosen);
            void change(() => api.updateMember(member.email, { role: chosen }));
          }}
          data-testid="member-role"
        >
          {(member.role === 'owner' ? ['owner', ...GIVEN_ROLES] : GIVEN_ROLES).map((choice) => (
            <option key={choice} value={choice} disabled={choice === 'owner'}>
              {choice}
            </option>
          ))}
        </select>
      </td>
      <td>
        <GroupChecks
          label={`Groups of ${member.email}`}
          groups={groups}
          chosen={memberGroups}
          disabled={!mayChange}
          onChange={(ids) => {
            setMemberGroups(ids);
            // Out of their last scoped group, the member would see every line: the server says so, and the person is asked.
            void change(() => sendWidening(`Changing the groups of ${member.email}`, (widen) => api.updateMember(member.email, { groups: ids }, widen)));
          }}
        />
      </td>
      <td>{member.active ? 'active' : <span className="muted">invited, no password yet</span>}</td>
      <td className="row-actions">
        <button
          type="button"
          aria-label={`Remove ${member.email}`}
          disabled={!mayChange}
          onClick={() => {
            const self = member.email === session.email ? ' This is you: your session ends.' : '';
            if (window.confirm(`Remove ${member.email} from the organisation? Their sessions end at once.${self}`)) void change(() => api.removeMember(member.email));
          }}
        >
          Remove
        </button>
      </td>
    </tr>
  );
}
