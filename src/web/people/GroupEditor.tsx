import { useState } from 'react';
import { ApiError, type Group, api } from '../api-client/client.js';
import { formatCount } from '../usage/usage-format.js';
import { ScopeProblemNote } from './ScopeProblemNote.js';
import { type ScopeProblem, saveProblem, scopeText, scopeValue } from './scope.js';
import { type ScopeCount, useScopeCount } from './useScopeCount.js';

/**
 * A group's name and access scope, new or edited. As the scope is typed it shows how many of the
 * last day's lines it lets through; a scope the server refuses shows where it is wrong.
 */
export function GroupEditor({ group, onSaved, onCancel }: { group: Group | null; onSaved: () => void; onCancel: () => void }) {
  const [name, setName] = useState(group?.name ?? '');
  const [scope, setScope] = useState(() => scopeText(group?.access_scopes));
  const [problem, setProblem] = useState<ScopeProblem | null>(null);
  const [saving, setSaving] = useState(false);
  const count = useScopeCount(scope);
  const shown = problem ?? (count.state === 'failed' ? count.problem : null);

  return (
    <form
      className="group-editor"
      aria-label={group ? `Edit group ${group.name}` : 'New group'}
      data-testid="group-editor"
      onSubmit={async (event) => {
        event.preventDefault();
        setSaving(true);
        setProblem(null);
        try {
          const body = { name: name.trim(), access_scopes: scopeValue(scope) };
          await (group ? api.updateGroup(group.groupId, body) : api.createGroup(body));
          onSaved();
        } catch (error) {
          setProblem(error instanceof ApiError ? saveProblem(error.body) : { message: String(error) });
        } finally {
          setSaving(false);
        }
      }}
    >
      <h3>{group ? `Edit “${group.name}”` : 'New group'}</h3>
      <label>
        Name
        <input value={name} onChange={(e) => setName(e.target.value)} required autoFocus data-testid="group-name" />
      </label>
      <label>
        Access scope
        <textarea
          className="mono"
          rows={2}
          value={scope}
          placeholder="app:billing OR host:web-*"
          onChange={(e) => {
            setScope(e.target.value);
            setProblem(null);
          }}
          aria-describedby="scope-help scope-count"
          aria-invalid={shown !== null}
          data-testid="group-scope"
        />
      </label>
      <span id="scope-help" className="muted">
        A search, as in the search bar; its members see only the lines it matches. With several lines, a line passes if any of them matches. Empty: no limit.
      </span>
      <ScopeCountNote count={count} empty={scope.trim() === ''} />
      {shown && <ScopeProblemNote text={scope} problem={shown} />}
      <div className="form-actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={saving} data-testid="save-group">
          {saving ? 'Saving…' : group ? 'Save group' : 'Create group'}
        </button>
      </div>
    </form>
  );
}

function ScopeCountNote({ count, empty }: { count: ScopeCount; empty: boolean }) {
  let text: string;
  if (count.state === 'counting') text = 'Counting the last day’s lines…';
  else if (count.state === 'failed') text = 'The lines cannot be counted until the scope is a valid search.';
  else if (empty) text = `An empty scope limits nothing: members see all ${formatCount(count.total)} lines of the last day.`;
  else text = `Lets through ${formatCount(count.matched)} of the ${formatCount(count.total)} lines of the last day (of the lines you can see).`;
  return (
    <p id="scope-count" className="muted" role="status" data-testid="scope-count" data-state={count.state} data-matched={count.state === 'counted' ? count.matched : undefined}>
      {text}
    </p>
  );
}
