import { useState } from 'react';
import type { Group, Member, Session } from '../api-client/client.js';
import { InviteForm } from './InviteForm.js';
import { MemberRow } from './MemberRow.js';
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
