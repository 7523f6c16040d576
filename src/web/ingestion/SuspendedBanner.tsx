import { useEffect, useState } from 'react';
import { api } from '../api-client/client.js';

/** How often the viewer asks whether ingestion is suspended (another admin may suspend it). */
const CHECK_MS = 30_000;

/** A banner while the organisation's ingestion is suspended: new lines are refused until it is resumed. */
export function SuspendedBanner() {
  const [suspended, setSuspended] = useState(false);
  useEffect(() => {
    let current = true;
    const check = () =>
      api.ingestionStatus().then(
        (status) => current && setSuspended(!status.is_ingesting),
        () => undefined, // the banner is a hint; the search itself reports failures
      );
    void check();
    const timer = setInterval(check, CHECK_MS);
    return () => {
      current = false;
      clearInterval(timer);
    };
  }, []);
  if (!suspended) return null;
  return (
    <p className="notice" role="status" data-testid="ingestion-suspended">
      Ingestion is suspended: this organisation refuses new lines until an admin resumes it (POST /v1/config/ingestion/resume).
    </p>
  );
}
