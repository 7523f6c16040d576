import { useEffect, useState } from 'react';
import type { ChartData } from '../api-client/client.js';
import { errorText } from '../shared/error-text.js';

/**
 * A chart's series, asked for again whenever `key` changes (the graph or the range); an answer to
 * an older question is dropped, so a slow one cannot replace a newer chart.
 */
export function useChartData(load: (() => Promise<ChartData>) | null, key: string) {
  const [data, setData] = useState<ChartData | null>(null);
  const [error, setError] = useState('');
  const [loading, setLoading] = useState(false);
  useEffect(() => {
    if (!load) return;
    let current = true;
    setLoading(true);
    load().then(
      (answer) => {
        if (!current) return;
        setData(answer);
        setError('');
        setLoading(false);
      },
      (failure) => {
        if (!current) return;
        setError(errorText(failure));
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
    // `load` is a new function each render; `key` says when its question changed.
  }, [key]);
  return { data, error, loading };
}
