import type { TailStatus } from './live-tail.js';

/** The live tail switch in the top bar, with the connection's state while it is on. */
export function LiveToggle({ on, status, onChange }: { on: boolean; status: TailStatus; onChange: (on: boolean) => void }) {
  return (
    <label className="live-toggle">
      <input type="checkbox" checked={on} onChange={(e) => onChange(e.target.checked)} data-testid="live" />
      Live tail
      {on && (
        <span className={`status ${status}`} data-testid="live-status" data-status={status}>
          {status === 'live' ? 'on' : `${status}…`}
        </span>
      )}
    </label>
  );
}
