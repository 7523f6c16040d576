import { useCallback, useEffect, useState } from 'react';
import { ApiError, type DeliveryLogEntry, api } from '../api-client/client.js';
import { useTimeFormats } from '../shared/time-zone.js';

/** A view's last notifications: when, to which channel, how it went, and how often it was retried. */
export function DeliveryHistory({ viewid }: { viewid: string }) {
  const times = useTimeFormats();
  const [entries, setEntries] = useState<DeliveryLogEntry[] | null>(null);
  const [problem, setProblem] = useState('');
  const load = useCallback(async () => {
    try {
      setEntries(await api.deliveries(viewid));
      setProblem('');
    } catch (error) {
      setProblem(error instanceof ApiError ? error.body.error : String(error));
    }
  }, [viewid]);
  useEffect(() => void load(), [load]);

  return (
    <fieldset className="deliveries" data-testid="deliveries">
      <legend>Recent notifications</legend>
      <button type="button" onClick={() => void load()}>
        Refresh
      </button>
      {problem && <p className="error">{problem}</p>}
      {entries?.length === 0 && <p className="muted">None sent yet.</p>}
      {entries && entries.length > 0 && (
        <table className="fields">
          <thead>
            <tr>
              <th>Time</th>
              <th>Channel</th>
              <th>Outcome</th>
              <th>Status</th>
              <th>Retries</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => {
              const last = entry.attempts[entry.attempts.length - 1];
              return (
                <tr key={entry.id} data-testid="delivery" title={last?.detail ?? ''}>
                  <td>{times.full.format(new Date(entry.created))}</td>
                  <td>
                    {entry.integration} {entry.target}
                  </td>
                  <td data-testid="delivery-outcome">{last?.outcome ?? entry.status}</td>
                  <td data-testid="delivery-status">{last?.status ?? '—'}</td>
                  <td data-testid="delivery-retries">{entry.retries}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </fieldset>
  );
}
