import { useState } from 'react';
import type { AuditFilter, AuditRecord } from '../api-client/client.js';
import { useTimeFormats } from '../shared/time-zone.js';
import { actionText, changeRows } from './audit-change.js';
import { useAudit } from './useAudit.js';
import { SettingsFrame } from '../shared/SettingsFrame.js';

/** The resources the server records changes to, offered as the filter's suggestions. */
const RESOURCES = ['view', 'presetalert', 'category', 'key', 'member', 'group', 'retention', 'session', 'ingestion-exclusion', 'ingestion', 'index-rate'];

/** The organisation's audit trail, for admins: who changed what, when, from where, before and after. */
export function AuditPage() {
  const [filter, setFilter] = useState<AuditFilter>({});
  const [actor, setActor] = useState('');
  const [resource, setResource] = useState('');
  const { records, next, loading, error, more } = useAudit(filter);
  return (
    <SettingsFrame title="Audit trail" name="audit">
      <form
        className="audit-filters"
        aria-label="Filter the audit trail"
        onSubmit={(event) => {
          event.preventDefault();
          setFilter({ actor: actor.trim() || undefined, resource: resource.trim() || undefined });
        }}
      >
        <label>
          Who
          <input value={actor} onChange={(e) => setActor(e.target.value)} placeholder="ana@example.com, or key &quot;name&quot; (id)" data-testid="audit-actor" />
        </label>
        <label>
          Resource
          <input list="audit-resources" value={resource} onChange={(e) => setResource(e.target.value)} placeholder="any" data-testid="audit-resource" />
        </label>
        <datalist id="audit-resources">
          {RESOURCES.map((name) => (
            <option key={name} value={name} />
          ))}
        </datalist>
        <button type="submit">Filter</button>
      </form>
      <p className="muted">Newest first. Secrets (keys, passwords, webhook headers) are masked.</p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {!loading && records.length === 0 && !error && <p className="muted">No changes recorded{filter.actor || filter.resource ? ' that match' : ''}.</p>}
      {records.length > 0 && (
        <table className="audit-table" data-testid="audit-records">
          <thead>
            <tr>
              <th>When</th>
              <th>Who</th>
              <th>From</th>
              <th>What</th>
              <th>Change</th>
            </tr>
          </thead>
          <tbody>
            {records.map((record, index) => (
              <AuditRow
                key={`${record.at}-${index}`}
                record={record}
                onActor={(who) => {
                  setActor(who);
                  setFilter({ ...filter, actor: who });
                }}
              />
            ))}
          </tbody>
        </table>
      )}
      {next && (
        <button type="button" className="load-more" onClick={() => void more()} disabled={loading} data-testid="audit-more">
          {loading ? 'Loading…' : 'Load more'}
        </button>
      )}
    </SettingsFrame>
  );
}

function AuditRow({ record, onActor }: { record: AuditRecord; onActor: (actor: string) => void }) {
  const times = useTimeFormats();
  const rows = changeRows(record.before, record.after);
  return (
    <tr data-testid="audit-record" data-action={record.action}>
      <td>
        <time dateTime={new Date(record.at).toISOString()}>{times.full.format(record.at)}</time>
      </td>
      <td>
        <button type="button" className="link" title="Show only this person’s changes" onClick={() => onActor(record.actor)}>
          {record.actor}
        </button>
      </td>
      <td className="mono">{record.address || <span className="muted">command line</span>}</td>
      <td>
        {actionText(record.action)} {record.id && <code>{record.id}</code>}
      </td>
      <td>
        {rows.length === 0 ? (
          <span className="muted">—</span>
        ) : (
          <table className="change">
            <tbody>
              {rows.map((row) => (
                <tr key={row.field}>
                  {row.field && <th>{row.field}</th>}
                  <td>
                    {row.before !== undefined && <del>{row.before}</del>}
                    {row.before !== undefined && row.after !== undefined && ' → '}
                    {row.after !== undefined && <ins>{row.after}</ins>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </td>
    </tr>
  );
}
