import { useEffect, useState } from 'react';
import { type FieldsResponse, type Filters, api, send } from '../api-client/client.js';

export interface FieldStatsState {
  answer: FieldsResponse | null;
  loading: boolean;
  failed: boolean;
}

/**
 * The fields of the current search (GET /v1/viewer/fields), asked for apart from its lines so a
 * long count never holds them up. A new search aborts the request before it: over millions of
 * lines each answer is seconds of the engine's work, and typing or a live range must not pile
 * them up (the server stops an abandoned one where its engine can: fields-routes.ts). Until the
 * next answer is in, the last one stays, marked as loading.
 */
export function useFieldStats(filters: Filters, top = 5): FieldStatsState {
  const [state, setState] = useState<FieldStatsState>({ answer: null, loading: true, failed: false });
  useEffect(() => {
    const abandon = new AbortController();
    setState((last) => ({ ...last, loading: true }));
    send(api.fields.request(filters, top), abandon.signal).then(
      (answer) => !abandon.signal.aborted && setState({ answer, loading: false, failed: false }),
      () => !abandon.signal.aborted && setState({ answer: null, loading: false, failed: true }),
    );
    return () => abandon.abort();
  }, [filters, top]);
  return state;
}
