import { useState } from 'react';
import type { Session } from './api-client/client.js';
import { PasswordPage } from './session/PasswordPage.js';
import { SignIn } from './session/SignIn.js';
import { useSession } from './session/useSession.js';
import { Shell } from './shell/Shell.js';

/** The path of the page a one-time link opens (the server sends this app for a valid link). */
const PASSWORD_PATH = '/password';

export function App() {
  const { session, signedIn, signedOut } = useSession();
  const [linkToken, setLinkToken] = useState(() => (location.pathname === PASSWORD_PATH ? new URLSearchParams(location.search).get('token') ?? '' : null));
  if (linkToken !== null) {
    // Shown whoever is signed in: the link's owner may be opening it in a browser that holds another session.
    const linkSpent = (found: Session) => {
      // The token leaves the address bar and the history: it is spent, and a credential until then.
      history.replaceState(null, '', '/');
      setLinkToken(null);
      signedIn(found);
    };
    return <PasswordPage token={linkToken} onSignedIn={linkSpent} />;
  }
  if (session === undefined) return <main className="loading">Loading…</main>;
  if (session === null) return <SignIn onSignedIn={signedIn} />;
  return <Shell session={session} onSignOut={signedOut} />;
}
