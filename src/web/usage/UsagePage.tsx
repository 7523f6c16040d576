import { useState } from 'react';
import { DaysTable, Ranking, UsageSummary } from './UsageTables.js';
import { useUsage } from './useUsage.js';
import { SettingsFrame } from '../shared/SettingsFrame.js';

/**
 * The organisation's usage: lines and bytes per day over the retention in force,
 * the largest apps and hosts, and how many lines had their meta left unsearchable.
 */
export function UsagePage() {
  const [days, setDays] = useState(30);
  const { report, error } = useUsage(days);
  return (
    <SettingsFrame
      title="Usage"
      name="usage"
      actions={
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
      }
    >
      {error && <p className="error">{error}</p>}
      {report && (
        <>
          <UsageSummary report={report} />
          <DaysTable days={report.days} />
          <div className="usage-rankings">
            <Ranking title="Top apps" rows={report.topApps} />
            <Ranking title="Top hosts" rows={report.topHosts} />
          </div>
        </>
      )}
    </SettingsFrame>
  );
}
