import { useEffect, useState } from 'react';
import { ApiError, type Filters, type PatternsResponse, api } from '../api-client/client.js';

/**
 * The current search's patterns, asked for only while the Patterns tab is open (grouping every
 * line costs more than a page of them), and again whenever the search changes. A failed request
 * keeps the previous answer beside its error.
 */
export function usePatterns(filters: Filters, open: boolean) {
  const [answer, setAnswer] = useState<{ filters: Filters; patterns: PatternsResponse } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  useEffect(() => {
    if (!open || answer?.filters === filters) return;
    let current = true;
    setLoading(true);
    api.patterns(filters).then(
      (patterns) => {
        if (!current) return;
        setAnswer({ filters, patterns });
        setError(null);
        setLoading(false);
      },
      (failure: unknown) => {
        if (!current) return;
        setError(failure instanceof ApiError ? failure.message : String(failure));
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
  }, [filters, open]);
  return { patterns: answer?.patterns ?? null, stale: answer !== null && answer.filters !== filters, error, loading };
}
