import { useEffect, useState } from 'react';
import { type Session, type SignInOptions, api } from '../api-client/client.js';
import { type SignInMethod, signInProblem } from './sign-in.js';

/** Before the server says otherwise, a password is offered: every server takes one. */
const PASSWORD_ONLY: SignInOptions = { password: true, sso: false, serviceKey: false };

type Form = SignInMethod | 'reset';

/**
 * The sign-in page: e-mail and password first; single sign-on and a service key when the server
 * offers them (GET /api/sign-in); and a way to have a new password link e-mailed.
 */
export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [options, setOptions] = useState<SignInOptions>(PASSWORD_ONLY);
  const [form, setForm] = useState<Form>('password');
  const [email, setEmail] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    // Without an answer the page still works: it offers the password form only.
    api.signInOptions().then(setOptions, () => undefined);
  }, []);

  const show = (next: Form) => {
    setError('');
    setForm(next);
  };
  const attempt = async (method: SignInMethod, signIn: () => Promise<Session>) => {
    setBusy(true);
    setError('');
    try {
      onSignedIn(await signIn());
    } catch (e) {
      setError(signInProblem(e, method));
      setBusy(false);
    }
  };

  return (
    <main className="signin">
      <div className="signin-box">
        <h1>Logstead</h1>
        {form === 'password' && <PasswordForm email={email} onEmail={setEmail} busy={busy} error={error} onSubmit={(password) => attempt('password', () => api.signInWithPassword(email.trim(), password))} />}
        {form === 'reset' && <ResetForm email={email} onEmail={setEmail} onBack={() => show('password')} />}
        {form === 'key' && <KeyForm busy={busy} error={error} onSubmit={(key) => attempt('key', () => api.signIn(key))} />}
        <div className="signin-others">
          {form === 'password' && (
            <button type="button" className="link" onClick={() => show('reset')} data-testid="forgot-password">
              Forgot your password?
            </button>
          )}
          {form !== 'password' && (
            <button type="button" className="link" onClick={() => show('password')}>
              Sign in with e-mail and password
            </button>
          )}
          {options.sso && (
            // A plain link: the server answers with a redirect to the identity provider.
            <a className="button" href="/api/sso/start" data-testid="sso">
              Sign in with SSO
            </a>
          )}
          {options.serviceKey && form !== 'key' && (
            <button type="button" className="link" onClick={() => show('key')} data-testid="use-service-key">
              Sign in with a service key
            </button>
          )}
        </div>
      </div>
    </main>
  );
}

function Problem({ text }: { text: string }) {
  return text ? (
    <p className="error" role="alert" data-testid="sign-in-error">
      {text}
    </p>
  ) : null;
}

function PasswordForm({ email, onEmail, busy, error, onSubmit }: { email: string; onEmail: (email: string) => void; busy: boolean; error: string; onSubmit: (password: string) => void }) {
  const [password, setPassword] = useState('');
  return (
    <form
      aria-label="Sign in with e-mail and password"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit(password);
      }}
    >
      <label>
        E-mail
        <input type="email" value={email} onChange={(e) => onEmail(e.target.value)} required autoFocus autoComplete="username" data-testid="email" />
      </label>
      <label>
        Password
        <input type="password" value={password} onChange={(e) => setPassword(e.target.value)} required autoComplete="current-password" data-testid="password" />
      </label>
      <Problem text={error} />
      <button type="submit" className="primary" disabled={busy}>
        Sign in
      </button>
    </form>
  );
}

function ResetForm({ email, onEmail, onBack }: { email: string; onEmail: (email: string) => void; onBack: () => void }) {
  const [sent, setSent] = useState('');
  const [error, setError] = useState('');
  return (
    <form
      aria-label="Reset your password"
      onSubmit={async (event) => {
        event.preventDefault();
        setError('');
        try {
          setSent((await api.requestPasswordReset(email.trim())).message);
        } catch (e) {
          setError(signInProblem(e, 'password'));
        }
      }}
    >
      <p>Enter your e-mail address. If it belongs to a member, we will send a link to choose a new password.</p>
      <label>
        E-mail
        <input type="email" value={email} onChange={(e) => onEmail(e.target.value)} required autoFocus autoComplete="username" data-testid="reset-email" />
      </label>
      <Problem text={error} />
      {sent ? (
        <>
          <p role="status" data-testid="reset-sent">
            {sent} It works once; check your inbox.
          </p>
          <button type="button" onClick={onBack}>
            Back to sign-in
          </button>
        </>
      ) : (
        <button type="submit" className="primary">
          Send me a link
        </button>
      )}
    </form>
  );
}

function KeyForm({ busy, error, onSubmit }: { busy: boolean; error: string; onSubmit: (key: string) => void }) {
  const [key, setKey] = useState('');
  return (
    <form
      aria-label="Sign in with a service key"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit(key);
      }}
    >
      <label>
        Service key
        <input type="password" value={key} onChange={(e) => setKey(e.target.value)} required autoFocus autoComplete="current-password" data-testid="service-key" />
      </label>
      <Problem text={error} />
      <button type="submit" className="primary" disabled={busy}>
        Sign in
      </button>
      <p className="muted">The key selects your organisation. Find it in data/initial-credentials.json, or create one with npx logstead key create.</p>
    </form>
  );
}
