import { useState } from 'react';
import { ApiError, api } from '../api.js';
import type { Session } from '../session.js';

export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState('');
  return (
    <main className="signin">
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          try {
            onSignedIn(await api<Session>('POST', '/api/session', { serviceKey: key }));
          } catch (e) {
            setError(e instanceof ApiError && e.status === 401 ? 'That is not a service key of an active organisation.' : String((e as Error).message));
          }
        }}
      >
        <h1>Logstead</h1>
        <label>
          Service key
          <input type="password" value={key} onChange={(e) => setKey(e.target.value)} autoFocus autoComplete="current-password" data-testid="service-key" />
        </label>
        {error && <p className="error" role="alert">{error}</p>}
        <button type="submit" className="primary">
          Sign in
        </button>
        <p className="muted">The key selects your organisation. Find it in data/initial-credentials.json, or create one with npx logstead key create.</p>
      </form>
    </main>
  );
}
