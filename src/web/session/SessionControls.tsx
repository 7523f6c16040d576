import { type Session, api } from '../api-client/client.js';
import { type Zone, zoneOf } from '../shared/time-formats.js';
import { useTheme } from './useTheme.js';

interface Props {
  session: Session;
  zone: Zone;
  onZone: (zone: Zone) => void;
  onSignOut: () => void;
  onUsage: () => void;
}

/** The reader's own settings (time zone, theme) and session, at the end of the top bar. */
export function SessionControls({ session, zone, onZone, onSignOut, onUsage }: Props) {
  const { theme, toggle } = useTheme();
  return (
    <>
      <select aria-label="Time zone" value={zone} onChange={(e) => onZone(zoneOf(e.target.value))} data-testid="time-zone">
        <option value="local">Local time</option>
        <option value="UTC">UTC</option>
      </select>
      <button type="button" onClick={toggle} aria-label="Switch theme" data-testid="theme" data-theme={theme} title={`Switch to the ${theme === 'dark' ? 'light' : 'dark'} theme`}>
        {theme === 'dark' ? '☀' : '☾'}
      </button>
      <button type="button" onClick={onUsage} data-testid="usage">
        Usage
      </button>
      <span className="muted" title={session.account}>
        {session.name}
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
