import { useEffect, useState } from 'react';
import type { UsageReport, Volume } from '../../wire/types.js';
import { ApiError, api } from '../api.js';

const DAY_MS = 86_400_000;

/** 1234567 bytes as "1.2 MB": volumes span bytes to terabytes. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

const count = (lines: number) => lines.toLocaleString('en');

function Ranking({ title, rows }: { title: string; rows: Array<Volume & { name: string }> }) {
  return (
    <section className="usage-ranking" aria-label={title}>
      <h3>{title}</h3>
      {rows.length === 0 ? (
        <p className="muted">No lines in this range.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Lines</th>
              <th>Bytes</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.name}>
                <td>{row.name || <span className="muted">(none)</span>}</td>
                <td>{count(row.lines)}</td>
                <td>{formatBytes(row.bytes)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/**
 * The organisation's usage (GET /v1/usage): lines and bytes per day over the retention in force,
 * the largest apps and hosts, and how many lines had their meta left unsearchable.
 */
export function UsagePage({ onClose }: { onClose: () => void }) {
  const [report, setReport] = useState<UsageReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [days, setDays] = useState(30);

  useEffect(() => {
    let current = true;
    setError(null);
    const to = Date.now();
    api<UsageReport>('GET', `/v1/usage?from=${to - days * DAY_MS}&to=${to}`).then(
      (answer) => current && setReport(answer),
      (failure: unknown) => current && setError(failure instanceof ApiError ? failure.message : String(failure)),
    );
    return () => {
      current = false;
    };
  }, [days]);

  const largest = Math.max(1, ...(report?.days ?? []).map((day) => day.bytes));
  return (
    <div className="modal" role="dialog" aria-modal="true" aria-label="Usage" onClick={(event) => event.target === event.currentTarget && onClose()}>
    <div className="modal-body wide usage-page" data-testid="usage-page">
      <header className="modal-header">
        <h2>Usage</h2>
        <label>
          Last{' '}
          <select value={days} onChange={(event) => setDays(Number(event.target.value))} aria-label="Days shown">
            {[1, 7, 30, 90].map((choice) => (
              <option key={choice} value={choice}>
                {choice} {choice === 1 ? 'day' : 'days'}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </header>
      {error && <p className="error">{error}</p>}
      {report && (
        <>
          <p data-testid="usage-retention">
            Lines are kept <strong>{report.retentionDays} days</strong>
            {report.retentionIsDefault ? " (the server's default)" : ' (set for this organisation)'}; older lines are removed.
          </p>
          <p data-testid="usage-totals">
            <strong>{count(report.totals.lines)}</strong> lines, <strong>{formatBytes(report.totals.bytes)}</strong> of line text
            {report.totals.metaUnindexedLines > 0 && (
              <>
                ; <strong>{count(report.totals.metaUnindexedLines)}</strong> lines kept their meta as text only (a field's type
                conflicted, or the daily cap on new fields was reached)
              </>
            )}
            .
          </p>
          <section aria-label="Per day">
            <h3>Per day (UTC)</h3>
            {report.days.length === 0 ? (
              <p className="muted">No lines in this range.</p>
            ) : (
              <table className="usage-days">
                <thead>
                  <tr>
                    <th>Day</th>
                    <th>Lines</th>
                    <th>Bytes</th>
                    <th aria-hidden="true" />
                  </tr>
                </thead>
                <tbody>
                  {report.days.map((day) => (
                    <tr key={day.day} data-testid="usage-day">
                      <td>{day.day}</td>
                      <td>{count(day.lines)}</td>
                      <td>{formatBytes(day.bytes)}</td>
                      <td className="usage-bar-cell" aria-hidden="true">
                        <span className="usage-bar" style={{ width: `${Math.max(1, (day.bytes / largest) * 100)}%` }} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
          <div className="usage-rankings">
            <Ranking title="Top apps" rows={report.topApps} />
            <Ranking title="Top hosts" rows={report.topHosts} />
          </div>
        </>
      )}
    </div>
    </div>
  );
}
