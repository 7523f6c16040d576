import type { UsageReport, Volume } from '../api-client/client.js';
import { barWidth, formatBytes, formatCount } from './usage-format.js';

/** The retention in force, and the range's totals. */
export function UsageSummary({ report }: { report: UsageReport }) {
  return (
    <>
      <p data-testid="usage-retention">
        Lines are kept <strong>{report.retentionDays} days</strong>
        {report.retentionIsDefault ? " (the server's default)" : ' (set for this organisation)'}; older lines are removed.
      </p>
      <p data-testid="usage-totals">
        <strong>{formatCount(report.totals.lines)}</strong> lines, <strong>{formatBytes(report.totals.bytes)}</strong> of line text
        {report.totals.metaUnindexedLines > 0 && (
          <>
            ; <strong>{formatCount(report.totals.metaUnindexedLines)}</strong> lines kept their meta as text only (a field's type
            conflicted, or the daily cap on new fields was reached)
          </>
        )}
        .
      </p>
    </>
  );
}

/** Lines and bytes per UTC day, with a bar for the bytes. */
export function DaysTable({ days }: { days: UsageReport['days'] }) {
  const largest = Math.max(1, ...days.map((day) => day.bytes));
  return (
    <section aria-label="Per day">
      <h3>Per day (UTC)</h3>
      {days.length === 0 ? (
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
            {days.map((day) => (
              <tr key={day.day} data-testid="usage-day">
                <td>{day.day}</td>
                <td>{formatCount(day.lines)}</td>
                <td>{formatBytes(day.bytes)}</td>
                <td className="usage-bar-cell" aria-hidden="true">
                  <span className="usage-bar" style={{ width: `${barWidth(day.bytes, largest)}%` }} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** The largest apps or hosts by volume. */
export function Ranking({ title, rows }: { title: string; rows: Array<Volume & { name: string }> }) {
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
                <td>{formatCount(row.lines)}</td>
                <td>{formatBytes(row.bytes)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
