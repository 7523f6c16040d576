import { useState } from 'react';
import { ApiError, type Group, type GroupBody, api } from '../api-client/client.js';
import { NameListInput } from './NameListInput.js';
import { ScopeCountNote } from './ScopeCountNote.js';
import { ScopeProblemNote } from './ScopeProblemNote.js';
import { type ScopeProblem, namesOf, namesText, saveProblem, scopeText, scopeValue } from './scope.js';
import { useScopeCount } from './useScopeCount.js';
import { sendWidening } from './widening.js';

/**
 * A group's name, access scope and exact lists of apps and hosts, new or edited. As the scope is
 * typed it shows how many of the last day's lines it lets through; a scope the server refuses shows
 * where it is wrong. Saved, the group comes back with what it admits, for the section to show. A
 * save that would let members see every line asks first, naming them.
 */
export function GroupEditor({ group, onSaved, onCancel }: { group: Group | null; onSaved: (saved: Group) => void; onCancel: () => void }) {
  const [name, setName] = useState(group?.name ?? '');
  const [scope, setScope] = useState(() => scopeText(group?.access_scopes));
  const [apps, setApps] = useState(() => namesText(group?.apps));
  const [hosts, setHosts] = useState(() => namesText(group?.hosts));
  const [problem, setProblem] = useState<ScopeProblem | null>(null);
  const [saving, setSaving] = useState(false);
  const count = useScopeCount(scope, { apps: namesOf(apps), hosts: namesOf(hosts) });
  const shown = problem ?? (count.state === 'failed' ? count.problem : null);
  const unlimited = scope.trim() === '' && namesOf(apps).length === 0 && namesOf(hosts).length === 0;

  const save = async () => {
    const body: GroupBody = { name: name.trim(), access_scopes: scopeValue(scope), apps: namesOf(apps), hosts: namesOf(hosts) };
    if (!group) return api.createGroup(body);
    return sendWidening(`Saving “${group.name}” without a scope`, (widen) => api.replaceGroup(group.groupId, body, widen));
  };

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
          // Not saved when the person chose not to widen: the editor stays open.
          const saved = await save();
          if (saved) onSaved(saved);
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
          placeholder="app:billing OR host:web-1"
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
        A search, as in the search bar; its members see only the lines it matches. With several lines, a line passes if any of them matches. Empty: no limit. A search matches words: app:checkout also matches checkout-secrets.
      </span>
      <NameListInput label="Apps" value={apps} onChange={setApps} placeholder="checkout, billing" testId="group-apps" />
      <NameListInput label="Hosts" value={hosts} onChange={setHosts} placeholder="pay-1, pay-2" testId="group-hosts" />
      <span id="lists-help" className="muted">
        Exact names, separated by commas: given, a line must also come from one of these apps and one of these hosts.
      </span>
      <ScopeCountNote count={count} empty={unlimited} />
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
