import { useState } from 'react';
import { ApiError, type ParserBody, type ParserRule, type ParserTestResult, api } from '../api-client/client.js';
import { captureNames, listText, parseList } from './parser-form.js';
import { ParserResults } from './ParserResults.js';

type CaptureType = ParserRule['types'][string];

export const message = (error: unknown) => (error instanceof ApiError ? error.body.error : (error as Error).message);

/** One rule's form: its fields, a try on recent or pasted lines, and (for admins) save and delete. */
export function ParserEditor({ id, initial, canWrite, onDone }: { id?: string; initial: ParserBody; canWrite: boolean; onDone: () => void }) {
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
      {captures.length > 0 && <CaptureTypes captures={captures} types={types} onChange={setTypes} />}
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
      {result && <ParserResults result={result} />}
    </form>
  );
}

/** The type each named capture is stored as: text unless set. */
function CaptureTypes({ captures, types, onChange }: { captures: string[]; types: Record<string, CaptureType>; onChange: (types: Record<string, CaptureType>) => void }) {
  return (
    <fieldset className="parser-types">
      <legend>Field types</legend>
      {captures.map((capture) => (
        <label key={capture}>
          {capture}{' '}
          <select value={types[capture] ?? 'string'} onChange={(event) => onChange({ ...types, [capture]: event.target.value as CaptureType })} data-testid={`type-${capture}`}>
            <option value="string">text</option>
            <option value="number">number</option>
            <option value="boolean">true/false</option>
          </select>
        </label>
      ))}
    </fieldset>
  );
}
