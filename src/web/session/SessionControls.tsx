import { type Session, api } from '../api-client/client.js';
import { type Zone, zoneOf } from '../shared/time-formats.js';
import { signedInAs } from './roles.js';
import { useTheme } from './useTheme.js';

interface Props {
  session: Session;
  zone: Zone;
  onZone: (zone: Zone) => void;
  onSignOut: () => void;
}

/** The reader's own settings (time zone, theme) and who is signed in, at the end of the top bar. */
export function SessionControls({ session, zone, onZone, onSignOut }: Props) {
  const { theme, toggle } = useTheme();
  const role = session.role ?? 'owner';
  return (
    <>
      <select aria-label="Time zone" value={zone} onChange={(e) => onZone(zoneOf(e.target.value))} data-testid="time-zone">
        <option value="local">Local time</option>
        <option value="UTC">UTC</option>
      </select>
      <button type="button" onClick={toggle} aria-label="Switch theme" data-testid="theme" data-theme={theme} title={`Switch to the ${theme === 'dark' ? 'light' : 'dark'} theme`}>
        {theme === 'dark' ? '☀' : '☾'}
      </button>
      <span className="who" title={`Organisation: ${session.name || session.account}${session.scoped ? '. Your groups limit which lines you see.' : ''}`}>
        <span data-testid="signed-in-as">{signedInAs(session)}</span>{' '}
        <span className="role" data-testid="role">
          {role}
        </span>
        {session.scoped && <span className="muted"> (scoped)</span>}
      </span>
      <button
        type="button"
        onClick={async () => {
          await api.signOut();
          onSignOut();
        }}
      >
        Sign out
      </button>
    </>
  );
}
