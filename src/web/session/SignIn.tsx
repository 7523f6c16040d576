import { useState } from 'react';
import { type Session, api } from '../api-client/client.js';
import { signInProblem } from './sign-in.js';

export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState('');
  return (
    <main className="signin">
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          try {
            onSignedIn(await api.signIn(key));
          } catch (e) {
            setError(signInProblem(e));
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
