import { useEffect, useState } from 'react';
import { type FieldsResponse, type Filters, api } from '../api-client/client.js';

export interface FieldStatsState {
  answer: FieldsResponse | null;
  loading: boolean;
  failed: boolean;
}

/**
 * The fields of the current search (GET /v1/viewer/fields), asked for apart from its lines so a
 * long count never holds them up. An answer that arrives after the next search started is dropped;
 * until the next one is in, the last one stays, marked as loading.
 */
export function useFieldStats(filters: Filters, top = 5): FieldStatsState {
  const [state, setState] = useState<FieldStatsState>({ answer: null, loading: true, failed: false });
  useEffect(() => {
    let cancelled = false;
    setState((last) => ({ ...last, loading: true }));
    api.fields(filters, top).then(
      (answer) => !cancelled && setState({ answer, loading: false, failed: false }),
      () => !cancelled && setState({ answer: null, loading: false, failed: true }),
    );
    return () => {
      cancelled = true;
    };
  }, [filters, top]);
  return state;
}
