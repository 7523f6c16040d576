import { useEffect, useState } from 'react';
import { ApiError, type Filters, type RestoreStatus, type Session, api } from '../api-client/client.js';
import { mayAdminister } from '../session/roles.js';
import { useTimeFormats } from '../shared/time-zone.js';

const DAY_MS = 86_400_000;
/** How often a running restore's progress is asked for. */
const POLL_MS = 1000;

interface Props {
  session: Session;
  filters: Filters;
  /** The restore finished: search again, so the restored lines show. */
  onRestored: () => void;
}

/**
 * When the search's range starts before the organisation's retention and it archives its lines:
 * an offer to restore that part of the range with the current query and menus from the archive (admins;
 * others are told an admin can), then the restore's progress with a Cancel button. Lines loaded
 * before a cancel stay.
 */
export function RestoreOffer({ session, filters, onRestored }: Props) {
  const formats = useTimeFormats();
  const [restore, setRestore] = useState<RestoreStatus | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const running = restore?.status === 'running';

  useEffect(() => {
    if (!restore || restore.status !== 'running') return;
    let current = true;
    const timer = setTimeout(() => {
      api.restore(restore.id).then(
        (next) => {
          if (!current) return;
          setRestore(next);
          if (next.status === 'done') onRestored();
        },
        (failure) => current && setError(failure instanceof Error ? failure.message : String(failure)),
      );
    }, POLL_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [restore]);

  const keptFrom = session.retentionDays === undefined ? undefined : Date.now() - session.retentionDays * DAY_MS;
  const offered = !!session.archiving && keptFrom !== undefined && filters.from < keptFrom;
  if (!offered && !restore) return null;

  const act = async (work: () => Promise<RestoreStatus>) => {
    setBusy(true);
    setError('');
    try {
      setRestore(await work());
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.body.error : String(failure));
    } finally {
      setBusy(false);
    }
  };
  const start = () => act(() => api.startRestore(filters.from, Math.min(filters.to, keptFrom ?? filters.to), filters));
  const day = (ms: number) => formats.day.format(new Date(ms));

  return (
    <div className="notice restore-offer" role="status" data-testid="restore-offer">
      {restore ? (
        <>
          <span data-testid="restore-status" data-status={restore.status}>
            {restore.status === 'running' && `Restoring from the archive: ${Math.round(restore.progress * 100)}% of the range read, ${restore.linesRestored} lines loaded.`}
            {restore.status === 'done' && `Restored ${restore.linesRestored} lines from the archive (${restore.linesFound} matched; the others were still stored). They are kept until ${day(restore.keptUntil)}.`}
            {restore.status === 'cancelled' && `Restore cancelled. The ${restore.linesRestored} lines loaded before the cancel stay until ${day(restore.keptUntil)}.`}
            {restore.status === 'failed' && `The restore failed: ${restore.error ?? 'no reason given'}. ${restore.linesRestored} lines were loaded.`}
          </span>{' '}
          {running && (
            <button type="button" data-testid="restore-cancel" disabled={busy} onClick={() => act(() => api.cancelRestore(restore.id))}>
              Cancel
            </button>
          )}
          {!running && (
            <button type="button" className="link" onClick={() => setRestore(null)}>
              Dismiss
            </button>
          )}
        </>
      ) : mayAdminister(session) ? (
        <>
          Lines before {day(keptFrom!)} are past this organisation's retention of {session.retentionDays} days, but its archive holds them.{' '}
          <button type="button" data-testid="restore-start" disabled={busy} onClick={start}>
            Restore this range{filters.q ? ' for this query' : ''} from the archive
          </button>
        </>
      ) : (
        <>Lines before {day(keptFrom!)} are past this organisation's retention of {session.retentionDays} days. An admin can restore them from the archive.</>
      )}
      {error && (
        <span className="error" data-testid="restore-error">
          {' '}
          {error}
        </span>
      )}
    </div>
  );
}
