import { useCallback, useEffect, useState } from 'react';
import { ApiError, type ParserBody, type ParserRule, type ParserTestResult, type Session, api } from '../api-client/client.js';
import { mayAdminister } from '../session/roles.js';
import { captureNames, listText, parseList } from './parser-form.js';

type CaptureType = ParserRule['types'][string];
const EMPTY: ParserBody = { name: '', apps: [], hosts: [], query: '', pattern: '', types: {} };

const message = (error: unknown) => (error instanceof ApiError ? error.body.error : (error as Error).message);

/**
 * Custom parsing rules: the organisation's list, and an editor that tries the rule on the last
 * lines it would apply to (or on pasted lines) and shows the fields each would get, before saving.
 * Readers list and try rules; admins save and delete them.
 */
export function ParsersPage({ session, onClose }: { session: Session; onClose: () => void }) {
  const [rules, setRules] = useState<ParserRule[] | null>(null);
  const [editing, setEditing] = useState<{ id?: string; body: ParserBody } | null>(null);
  const [error, setError] = useState('');
  const canWrite = mayAdminister(session);

  const reload = useCallback(() => {
    api.parsers().then(setRules, (failure) => setError(message(failure)));
  }, []);
  useEffect(reload, [reload]);

  return (
    <div className="modal" role="dialog" aria-modal="true" aria-label="Parsing rules" onClick={(event) => event.target === event.currentTarget && onClose()}>
      <div className="modal-body wide parsers-page" data-testid="parsers-page">
        <header className="modal-header">
          <h2>Parsing rules</h2>
          <button type="button" onClick={() => setEditing({ body: EMPTY })} data-testid="new-parser">
            New rule
          </button>
          <button type="button" onClick={onClose}>
            Close
          </button>
        </header>
        <p className="muted">
          JSON, logfmt, Apache and nginx access and error logs, and syslog headers are parsed on their own. A rule extracts fields from other lines with an
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
      </div>
    </div>
  );
}

function ParserEditor({ id, initial, canWrite, onDone }: { id?: string; initial: ParserBody; canWrite: boolean; onDone: () => void }) {
  const [name, setName] = useState(initial.name);
  const [apps, setApps] = useState(listText(initial.apps));
  const [hosts, setHosts] = useState(listText(initial.hosts));
  const [query, setQuery] = useState(initial.query);
  const [pattern, setPattern] = useState(initial.pattern);
  const [types, setTypes] = useState<Record<string, CaptureType>>(initial.types);
  const [samples, setSamples] = useState('');
  const [result, setResult] = useState<ParserTestResult | null>(null);
  const [error, setError] = useState('');
  const captures = captureNames(pattern);

  const body = (): ParserBody => ({
    name: name.trim(),
    apps: parseList(apps),
    hosts: parseList(hosts),
    query,
    pattern,
    // Only the captures the pattern has, and only those not left as text.
    types: Object.fromEntries(captures.filter((capture) => types[capture] && types[capture] !== 'string').map((capture) => [capture, types[capture]])),
  });

  const test = async () => {
    setError('');
    const { name: _name, ...rule } = body();
    const lines = samples.split('\n').filter((line) => line !== '');
    try {
      setResult(await api.testParser(lines.length ? { ...rule, lines } : rule));
    } catch (failure) {
      setResult(null);
      setError(message(failure));
    }
  };
  const save = async () => {
    setError('');
    try {
      await api.saveParser(id, body());
      onDone();
    } catch (failure) {
      setError(message(failure));
    }
  };
  const remove = async () => {
    if (!id || !window.confirm(`Delete the rule "${initial.name}"? Lines already stored keep their fields.`)) return;
    try {
      await api.deleteParser(id);
      onDone();
    } catch (failure) {
      setError(message(failure));
    }
  };

  return (
    <form className="parser-editor" data-testid="parser-editor" onSubmit={(event) => event.preventDefault()}>
      <h3>{id ? `Edit ${initial.name}` : 'New rule'}</h3>
      <label>
        Name (the lines' _logtype) <input value={name} onChange={(event) => setName(event.target.value)} data-testid="parser-name" />
      </label>
      <label>
        Apps (comma-separated; none: all) <input value={apps} onChange={(event) => setApps(event.target.value)} data-testid="parser-apps" />
      </label>
      <label>
        Hosts (comma-separated; none: all) <input value={hosts} onChange={(event) => setHosts(event.target.value)} data-testid="parser-hosts" />
      </label>
      <label>
        Query (search syntax; empty: all) <input value={query} onChange={(event) => setQuery(event.target.value)} data-testid="parser-query" />
      </label>
      <label>
        Pattern (RE2) <input value={pattern} onChange={(event) => setPattern(event.target.value)} data-testid="parser-pattern" spellCheck={false} />
      </label>
      {captures.length > 0 && (
        <fieldset className="parser-types">
          <legend>Field types</legend>
          {captures.map((capture) => (
            <label key={capture}>
              {capture}{' '}
              <select value={types[capture] ?? 'string'} onChange={(event) => setTypes({ ...types, [capture]: event.target.value as CaptureType })} data-testid={`type-${capture}`}>
                <option value="string">text</option>
                <option value="number">number</option>
                <option value="boolean">true/false</option>
              </select>
            </label>
          ))}
        </fieldset>
      )}
      <label>
        Sample lines (one a line; empty: the last lines the rule would apply to)
        <textarea rows={3} value={samples} onChange={(event) => setSamples(event.target.value)} data-testid="parser-samples" />
      </label>
      <div className="actions">
        <button type="button" onClick={test} data-testid="parser-test">
          Test
        </button>
        {canWrite && (
          <button type="button" onClick={save} data-testid="parser-save">
            Save
          </button>
        )}
        {canWrite && id && (
          <button type="button" onClick={remove} data-testid="parser-delete">
            Delete
          </button>
        )}
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
      {error && (
        <p className="error" data-testid="parser-error">
          {error}
        </p>
      )}
      {result && (
        <table className="parser-results" data-testid="parser-results">
          <thead>
            <tr>
              <th>Line</th>
              <th>Fields it would get</th>
            </tr>
          </thead>
          <tbody>
            {result.lines.length === 0 && (
              <tr>
                <td colSpan={2} className="muted">
                  No recent lines for these apps, hosts and query; paste sample lines to try the pattern.
                </td>
              </tr>
            )}
            {result.lines.map((line, index) => (
              <tr key={index} className={line.matched ? 'matched' : 'unmatched'}>
                <td>
                  <code>{line.line}</code>
                </td>
                <td data-testid="parser-fields">{line.fields ? JSON.stringify(line.level ? { ...line.fields, level: line.level } : line.fields) : 'no match'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </form>
  );
}
