import { useEffect, useState } from 'react';
import { api, setCsrfToken } from './api.js';
import { SignIn } from './components/SignIn.js';
import { Viewer } from './Viewer.js';
import type { Session } from './session.js';

export function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  useEffect(() => {
    api<Session>('GET', '/api/session').then(
      (found) => {
        setCsrfToken(found.csrfToken);
        setSession(found);
      },
      () => setSession(null),
    );
    const signedOut = () => setSession(null);
    window.addEventListener('logstead:signed-out', signedOut);
    return () => window.removeEventListener('logstead:signed-out', signedOut);
  }, []);
  if (session === undefined) return <main className="loading">Loading…</main>;
  if (session === null) {
    return (
      <SignIn
        onSignedIn={(found) => {
          setCsrfToken(found.csrfToken);
          setSession(found);
        }}
      />
    );
  }
  return <Viewer session={session} onSignOut={() => setSession(null)} />;
}
