import { useCallback, useEffect, useState } from 'react';
import { type CreatedKey, type KeyInfo, api } from '../api-client/client.js';
import { CopyButton } from '../search/CopyButton.js';
import { errorText } from '../shared/error-text.js';
import { useTimeFormats } from '../shared/time-zone.js';
import { SettingsFrame } from '../shared/SettingsFrame.js';

/**
 * The organisation's ingestion and service keys, for admins: who made each and what it may do now,
 * a form that creates one (its secret is shown this once: the server keeps only its hash), and
 * revoking. A key made by a member holds at most that member's rights.
 */
export function KeysPage() {
  const [keys, setKeys] = useState<KeyInfo[] | null>(null);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [error, setError] = useState('');
  const reload = useCallback(() => {
    api.keys().then(setKeys, (failure) => setError(errorText(failure)));
  }, []);
  useEffect(reload, [reload]);
  return (
    <SettingsFrame title="Keys" name="keys">
      <p className="muted">
        Ingestion keys send lines; service keys call the API with the rights of whoever made them. A key is shown once, when it is made.
      </p>
      <NewKeyForm
        onCreated={(key) => {
          setCreated(key);
          setError('');
          reload();
        }}
        onError={setError}
      />
      {created && (
        <p className="key-created" role="status" data-testid="created-key">
          New {created.type} key “{created.name || created.id}”: <code>{created.key}</code> <CopyButton text={created.key} label="Copy the new key" /> Keep it now: it is not shown again.
        </p>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {keys && <KeyTable keys={keys} onRevoked={reload} onError={setError} />}
    </SettingsFrame>
  );
}

function NewKeyForm({ onCreated, onError }: { onCreated: (key: CreatedKey) => void; onError: (message: string) => void }) {
  const [type, setType] = useState<KeyInfo['type']>('ingestion');
  const [name, setName] = useState('');
  return (
    <form
      className="inline-form"
      aria-label="New key"
      onSubmit={(event) => {
        event.preventDefault();
        api.createKey(type, name.trim()).then(
          (key) => {
            setName('');
            onCreated(key);
          },
          (failure) => onError(errorText(failure)),
        );
      }}
    >
      <label>
        Type
        <select value={type} onChange={(event) => setType(event.target.value as KeyInfo['type'])} data-testid="key-type">
          <option value="ingestion">Ingestion</option>
          <option value="service">Service</option>
        </select>
      </label>
      <label>
        Name
        <input value={name} onChange={(event) => setName(event.target.value)} maxLength={256} placeholder="e.g. web servers" data-testid="key-name" />
      </label>
      <button type="submit" className="primary" data-testid="create-key">
        Create key
      </button>
    </form>
  );
}

function KeyTable({ keys, onRevoked, onError }: { keys: KeyInfo[]; onRevoked: () => void; onError: (message: string) => void }) {
  const times = useTimeFormats();
  const [confirming, setConfirming] = useState<string | null>(null);
  if (keys.length === 0) return <p className="muted">No keys.</p>;
  return (
    <table className="settings-table" data-testid="keys-list">
      <thead>
        <tr>
          <th>Name</th>
          <th>Type</th>
          <th>Id</th>
          <th>Made</th>
          <th>May</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {keys.map((key) => (
          <tr key={key.id} data-testid="key-row" data-key={key.id}>
            <td>{key.name || <span className="muted">(unnamed)</span>}</td>
            <td>{key.type}</td>
            <td className="mono">{key.id}</td>
            <td>
              {times.day.format(new Date(key.created))}
              {key.maker && <span className="muted"> by {key.maker}</span>}
            </td>
            <td>{key.type === 'ingestion' ? 'send lines' : `${key.role ?? 'nothing (its maker is gone)'}${key.scope ? `, scoped to ${key.scope.join(' or ')}` : ''}`}</td>
            <td>
              {confirming === key.id ? (
                <>
                  <button
                    type="button"
                    className="danger"
                    onClick={() => {
                      setConfirming(null);
                      api.revokeKey(key.id).then(onRevoked, (failure) => onError(errorText(failure)));
                    }}
                    data-testid="confirm-revoke"
                  >
                    Revoke it
                  </button>{' '}
                  <button type="button" onClick={() => setConfirming(null)}>
                    Keep
                  </button>
                </>
              ) : (
                <button type="button" onClick={() => setConfirming(key.id)} aria-label={`Revoke ${key.name || key.id}`} data-testid="revoke-key">
                  Revoke
                </button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
