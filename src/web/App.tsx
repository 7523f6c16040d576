import { Viewer } from './Viewer.js';
import { SignIn } from './session/SignIn.js';
import { useSession } from './session/useSession.js';

export function App() {
  const { session, signedIn, signedOut } = useSession();
  if (session === undefined) return <main className="loading">Loading…</main>;
  if (session === null) return <SignIn onSignedIn={signedIn} />;
  return <Viewer session={session} onSignOut={signedOut} />;
}
