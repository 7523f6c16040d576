import { useEffect, useState } from 'react';
import { type Group, type Member, type Role, type Session, api } from '../api-client/client.js';
import { GIVEN_ROLES } from '../session/roles.js';
import { GroupChecks } from './GroupChecks.js';
import { InviteForm } from './InviteForm.js';
import { apiProblem } from './usePeople.js';

interface Props {
  session: Session;
  members: Member[];
  groups: Group[];
  onChanged: () => Promise<void>;
}

/** The organisation's members: invite one, change a role or groups, remove one. */
export function MembersSection({ session, members, groups, onChanged }: Props) {
  const [problem, setProblem] = useState('');
  /** Each change is sent at once; the list is then read again, so it shows what the server kept. */
  const change = async (work: () => Promise<unknown>) => {
    setProblem('');
    try {
      await work();
    } catch (error) {
      setProblem(apiProblem(error));
    }
    await onChanged();
  };
  return (
    <section aria-labelledby="members-heading" className="people-section">
      <h3 id="members-heading">Members</h3>
      <InviteForm groups={groups} onInvited={onChanged} />
      {problem && (
        <p className="error" role="alert" data-testid="members-problem">
          {problem}
        </p>
      )}
      <table className="people-table" data-testid="members">
        <thead>
          <tr>
            <th>E-mail</th>
            <th>Role</th>
            <th>Groups</th>
            <th>Status</th>
            <th>
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {members.map((member) => (
            <MemberRow key={member.email} member={member} session={session} groups={groups} change={change} />
          ))}
        </tbody>
      </table>
    </section>
  );
}

interface RowProps {
  member: Member;
  session: Session;
  groups: Group[];
  change: (work: () => Promise<unknown>) => Promise<void>;
}

/** One member. A role or groups chosen show at once, while sent; the list read afterwards says what the server kept. */
function MemberRow({ member, session, groups, change }: RowProps) {
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
            void change(() => api.updateMember(member.email, { groups: ids }));
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
