import { useCallback, useEffect, useState } from 'react';
import { type AuditFilter, type AuditRecord, api } from '../api-client/client.js';
import { apiProblem } from '../people/usePeople.js';

/** The audit trail under a filter, newest first, a page at a time: `more` appends the next page. */
export function useAudit(filter: AuditFilter) {
  const [records, setRecords] = useState<AuditRecord[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState('');

  useEffect(() => {
    let current = true;
    setLoading(true);
    setError('');
    api.audit(filter).then(
      (page) => {
        if (!current) return;
        setRecords(page.records);
        setNext(page.next);
        setLoading(false);
      },
      (failure: unknown) => {
        if (!current) return;
        setError(apiProblem(failure));
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
  }, [filter]);

  const more = useCallback(async () => {
    if (!next) return;
    setLoading(true);
    try {
      const page = await api.audit(filter, next);
      setRecords((shown) => [...shown, ...page.records]);
      setNext(page.next);
    } catch (failure) {
      setError(apiProblem(failure));
    } finally {
      setLoading(false);
    }
  }, [filter, next]);

  return { records, next, loading, error, more };
}
