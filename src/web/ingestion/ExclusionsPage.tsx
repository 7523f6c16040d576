import { useEffect, useState } from 'react';
import { ApiError, type ExcludedUsage, type ExclusionRule, api } from '../api-client/client.js';
import { formatBytes } from '../usage/usage-format.js';
import { SettingsFrame } from '../shared/SettingsFrame.js';

/**
 * The organisation's ingestion exclusion rules and how many lines each kept out of the store in the
 * last day. Read-only: rules are changed through /v1/config/ingestion/exclusions (or Terraform).
 */
export function ExclusionsPage() {
  const [rules, setRules] = useState<ExclusionRule[] | null>(null);
  const [usage, setUsage] = useState<ExcludedUsage | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    Promise.all([api.exclusions(), api.excludedUsage()]).then(
      ([found, counted]) => {
        if (!current) return;
        setRules(found);
        setUsage(counted);
      },
      (failure: unknown) => current && setError(failure instanceof ApiError ? failure.message : String(failure)),
    );
    return () => {
      current = false;
    };
  }, []);
  const excluded = new Map(usage?.rules.map((rule) => [rule.id, rule]) ?? []);
  return (
    <SettingsFrame title="Exclusion rules" name="exclusions">
      <p className="muted">
        Active rules keep matching lines out of the store. An index-only rule still lets them reach live tail and alerts. Excluded in the last day:{' '}
        <span data-testid="excluded-total">{usage ? `${usage.lines.toLocaleString()} lines (${formatBytes(usage.bytes)})` : '…'}</span>.
      </p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {rules && rules.length === 0 && <p className="muted">No exclusion rules.</p>}
      {rules && rules.length > 0 && (
        <table data-testid="exclusion-rules">
          <thead>
            <tr>
              <th>Title</th>
              <th>State</th>
              <th>Apps</th>
              <th>Hosts</th>
              <th>Query</th>
              <th>Excluded (last day)</th>
            </tr>
          </thead>
          <tbody>
            {rules.map((rule) => (
              <tr key={rule.id} data-rule={rule.id}>
                <td>{rule.title || <span className="muted">(untitled)</span>}</td>
                <td>{rule.active ? (rule.indexonly ? 'active, index only' : 'active') : 'inactive'}</td>
                <td>{rule.apps.join(', ')}</td>
                <td>{rule.hosts.join(', ')}</td>
                <td>
                  <code>{rule.query}</code>
                </td>
                <td data-testid="excluded-lines">{(excluded.get(rule.id)?.lines ?? 0).toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </SettingsFrame>
  );
}
