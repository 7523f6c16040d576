import { useEffect, useState } from 'react';
import { type PasswordLink, type Session, api } from '../api-client/client.js';
import { MIN_PASSWORD_LENGTH, linkProblem, linkPurpose, passwordProblem } from './password-choice.js';

/**
 * The page a one-time link opens (/password?token=...): an invitation, a password reset, or the
 * first start's link that makes its opener the owner. It says which, takes the new password twice
 * (and the owner's e-mail), and signs the person in.
 */
export function PasswordPage({ token, onSignedIn }: { token: string; onSignedIn: (session: Session) => void }) {
  const [link, setLink] = useState<PasswordLink | null>(null);
  const [refused, setRefused] = useState('');
  useEffect(() => {
    api.passwordLink(token).then(setLink, (error: unknown) => setRefused(linkProblem(error)));
  }, [token]);

  return (
    <main className="signin">
      <div className="signin-box" data-testid="password-page">
        <h1>Logstead</h1>
        {refused && (
          <>
            <p className="error" role="alert" data-testid="password-error">
              {refused}
            </p>
            <a href="/">Go to the sign-in page</a>
          </>
        )}
        {!refused && !link && <p className="muted">Reading the link…</p>}
        {link && <ChoosePassword token={token} link={link} onSignedIn={onSignedIn} />}
      </div>
    </main>
  );
}

function ChoosePassword({ token, link, onSignedIn }: { token: string; link: PasswordLink; onSignedIn: (session: Session) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [repeated, setRepeated] = useState('');
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);
  const { title, text } = linkPurpose(link);
  const owner = link.purpose === 'owner';
  return (
    <form
      aria-label={title}
      onSubmit={async (event) => {
        event.preventDefault();
        const mismatch = passwordProblem(password, repeated);
        setProblem(mismatch ?? '');
        if (mismatch) return;
        setBusy(true);
        try {
          onSignedIn(await api.choosePassword(token, password, owner ? email.trim() : undefined));
        } catch (error) {
          setProblem(linkProblem(error));
          setBusy(false);
        }
      }}
    >
      <h2 data-testid="password-purpose">{title}</h2>
      <p>{text}</p>
      {owner ? (
        <label>
          E-mail
          <input type="email" value={email} onChange={(e) => setEmail(e.target.value)} required autoFocus autoComplete="username" data-testid="owner-email" />
        </label>
      ) : (
        link.email && (
          // Shown read-only, also so that a password manager stores the new password under this name.
          <label>
            E-mail
            <input type="email" value={link.email} readOnly autoComplete="username" />
          </label>
        )
      )}
      <label>
        New password
        <input
          type="password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          required
          autoFocus={!owner}
          autoComplete="new-password"
          aria-describedby="password-rule"
          data-testid="new-password"
        />
      </label>
      <span id="password-rule" className="muted">
        At least {MIN_PASSWORD_LENGTH} characters.
      </span>
      <label>
        The same password again
        <input type="password" value={repeated} onChange={(e) => setRepeated(e.target.value)} required autoComplete="new-password" data-testid="repeat-password" />
      </label>
      {problem && (
        <p className="error" role="alert" data-testid="password-error">
          {problem}
        </p>
      )}
      <button type="submit" className="primary" disabled={busy}>
        {owner ? 'Become the owner and sign in' : 'Set password and sign in'}
      </button>
      <p className="muted">The link works once, until {new Date(link.expires).toLocaleString()}.</p>
    </form>
  );
}
