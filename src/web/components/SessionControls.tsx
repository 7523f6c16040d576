import { api } from '../api.js';
import type { Theme } from '../hooks/useTheme.js';
import type { Session } from '../session.js';
import type { Zone } from '../time-zone.js';

interface Props {
  session: Session;
  zone: Zone;
  onZone: (zone: Zone) => void;
  theme: Theme;
  onToggleTheme: () => void;
  onSignOut: () => void;
  onUsage: () => void;
}

/** The reader's own settings (time zone, theme) and session, at the end of the top bar. */
export function SessionControls({ session, zone, onZone, theme, onToggleTheme, onSignOut, onUsage }: Props) {
  return (
    <>
      <select aria-label="Time zone" value={zone} onChange={(e) => onZone(e.target.value as Zone)} data-testid="time-zone">
        <option value="local">Local time</option>
        <option value="UTC">UTC</option>
      </select>
      <button type="button" onClick={onToggleTheme} aria-label="Switch theme" data-testid="theme" data-theme={theme} title={`Switch to the ${theme === 'dark' ? 'light' : 'dark'} theme`}>
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
          await api('DELETE', '/api/session');
          onSignOut();
        }}
      >
        Sign out
      </button>
    </>
  );
}
