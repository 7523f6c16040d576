import { useState } from 'react';
import { type Group, type Role, api } from '../api-client/client.js';
import { GIVEN_ROLES, ROLE_HINTS } from '../session/roles.js';
import { GroupChecks } from './GroupChecks.js';
import { apiProblem } from './usePeople.js';

/** Invites a person: they are e-mailed a one-time link to choose a password. */
export function InviteForm({ groups, onInvited }: { groups: Group[]; onInvited: () => Promise<void> }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [chosen, setChosen] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  return (
    <form
      className="invite"
      aria-label="Invite a member"
      onSubmit={async (event) => {
        event.preventDefault();
        setBusy(true);
        setOutcome(null);
        try {
          const invited = await api.inviteMember({ email: email.trim(), role, groups: chosen });
          setOutcome(
            invited.invitation.sent
              ? { ok: true, text: `Invited ${invited.email}: the invitation e-mail was sent.` }
              : { ok: false, text: `Invited ${invited.email}, but the invitation e-mail was not sent: ${invited.invitation.detail}` },
          );
          setEmail('');
          setChosen([]);
          await onInvited();
        } catch (error) {
          setOutcome({ ok: false, text: apiProblem(error) });
        } finally {
          setBusy(false);
        }
      }}
    >
      <label>
        E-mail
        <input type="email" value={email} onChange={(e) => setEmail(e.target.value)} required placeholder="name@example.com" data-testid="invite-email" />
      </label>
      <label>
        Role
        <select value={role} onChange={(e) => setRole(e.target.value as Role)} data-testid="invite-role" title={ROLE_HINTS[role]}>
          {GIVEN_ROLES.map((choice) => (
            <option key={choice} value={choice}>
              {choice}
            </option>
          ))}
        </select>
      </label>
      <GroupChecks label="Groups" groups={groups} chosen={chosen} onChange={setChosen} />
      <button type="submit" className="primary" disabled={busy} data-testid="invite">
        {busy ? 'Inviting…' : 'Invite'}
      </button>
      {outcome && (
        <p className={outcome.ok ? 'invite-outcome' : 'invite-outcome error'} role={outcome.ok ? 'status' : 'alert'} data-testid="invitation">
          {outcome.text}
        </p>
      )}
      <p className="muted role-hint">
        {role}: {ROLE_HINTS[role]}.
      </p>
    </form>
  );
}
