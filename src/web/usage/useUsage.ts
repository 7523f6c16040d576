import { useEffect, useState } from 'react';
import { ApiError, type UsageReport, api } from '../api-client/client.js';
import { DAY_MS } from './usage-format.js';

/** The organisation's usage over the last `days` days, asked again whenever the range changes. */
export function useUsage(days: number) {
  const [report, setReport] = useState<UsageReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    setError(null);
    const to = Date.now();
    api.usage(to - days * DAY_MS, to).then(
      (answer) => current && setReport(answer),
      (failure: unknown) => current && setError(failure instanceof ApiError ? failure.message : String(failure)),
    );
    return () => {
      current = false;
    };
  }, [days]);
  return { report, error };
}
