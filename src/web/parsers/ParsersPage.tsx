import { useCallback, useEffect, useState } from 'react';
import { type ParserBody, type ParserRule, type Session, api } from '../api-client/client.js';
import { mayAdminister } from '../session/roles.js';
import { ParserEditor, message } from './ParserEditor.js';
import { detectedFormatsText } from './detected-formats.js';
import { SettingsFrame } from '../shared/SettingsFrame.js';

const EMPTY: ParserBody = { name: '', apps: [], hosts: [], query: '', pattern: '', types: {} };

/**
 * Custom parsing rules: the organisation's list, and an editor that tries the rule on the last
 * lines it would apply to (or on pasted lines) and shows the fields each would get, before saving.
 * Readers list and try rules; admins save and delete them.
 */
export function ParsersPage({ session }: { session: Session }) {
  const [rules, setRules] = useState<ParserRule[] | null>(null);
  const [editing, setEditing] = useState<{ id?: string; body: ParserBody } | null>(null);
  const [error, setError] = useState('');
  const canWrite = mayAdminister(session);

  const reload = useCallback(() => {
    api.parsers().then(setRules, (failure) => setError(message(failure)));
  }, []);
  useEffect(reload, [reload]);

  return (
    <SettingsFrame
      title="Parsing rules"
      name="parsers"
      actions={
        <button type="button" onClick={() => setEditing({ body: EMPTY })} data-testid="new-parser">
          New rule
        </button>
      }
    >
      <p className="muted">
        {detectedFormatsText()} lines are parsed on their own. A rule extracts fields from other lines with an
        RE2 pattern's named captures, <code>(?P&lt;name&gt;…)</code>; it applies from the moment it is saved, and its name becomes the lines' <code>_logtype</code>.
      </p>
      {error && <p className="error">{error}</p>}
      {rules && rules.length === 0 && <p className="muted">No rules yet.</p>}
      {rules && rules.length > 0 && (
        <table className="parsers-list" data-testid="parsers-list">
          <thead>
            <tr>
              <th>Name</th>
              <th>Applies to</th>
              <th>Pattern</th>
            </tr>
          </thead>
          <tbody>
            {rules.map((rule) => (
              <tr key={rule.id}>
                <td>
                  <button type="button" className="link" onClick={() => setEditing({ id: rule.id, body: rule })}>
                    {rule.name}
                  </button>
                </td>
                <td>{[rule.apps.length ? `apps ${rule.apps.join(', ')}` : '', rule.hosts.length ? `hosts ${rule.hosts.join(', ')}` : '', rule.query].filter(Boolean).join('; ') || 'every line'}</td>
                <td>
                  <code>{rule.pattern}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {editing && (
        <ParserEditor
          key={editing.id ?? 'new'}
          id={editing.id}
          initial={editing.body}
          canWrite={canWrite}
          onDone={() => {
            setEditing(null);
            reload();
          }}
        />
      )}
    </SettingsFrame>
  );
}
