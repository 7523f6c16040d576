import { useEffect, useState } from 'react';
import { type Session, api, onSignedOut, setCsrfToken } from '../api-client/client.js';

/**
 * Who is signed in: undefined while the server is asked, null when nobody is (or the session
 * ended, in this tab or another), else the session, whose token every later call carries.
 */
export function useSession() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  useEffect(() => {
    api.session().then(
      (found) => {
        setCsrfToken(found.csrfToken);
        setSession(found);
      },
      () => setSession(null),
    );
    return onSignedOut(() => setSession(null));
  }, []);
  const signedIn = (found: Session) => {
    setCsrfToken(found.csrfToken);
    setSession(found);
  };
  return { session, signedIn, signedOut: () => setSession(null) };
}
