import { useState } from 'react';
import { ApiError, type BacktestResponse, type Channel, type TestSendResult, api } from '../api.js';
import { useTimeFormats } from '../time-zone.js';
import { problemsOf, wireChannel } from './channel-wire.js';

export interface ViewFilters {
  query: string;
  hosts: string[];
  apps: string[];
  levels: string[];
  tags: string[];
}

const failure = (error: unknown) => (error instanceof ApiError ? problemsOf(error.body).join('; ') : String(error));

/**
 * Ways to trust an alert before it matters: send one test notification now and see what the
 * receiver answered, and replay the rule over the last days to see when it would have fired.
 */
export function ChannelChecks({ channel, viewid, filters }: { channel: Channel; viewid?: string; filters: ViewFilters }) {
  const [testing, setTesting] = useState(false);
  const [sent, setSent] = useState<TestSendResult | { error: string } | null>(null);
  const [days, setDays] = useState(1);
  const [replaying, setReplaying] = useState(false);
  const [backtest, setBacktest] = useState<BacktestResponse | { error: string } | null>(null);

  const sendTest = async () => {
    setTesting(true);
    setSent(null);
    try {
      setSent(await api<TestSendResult>('POST', '/v1/alerts/test-channel', { channel: wireChannel(channel), ...(viewid ? { viewid } : {}) }));
    } catch (error) {
      setSent({ error: failure(error) });
    } finally {
      setTesting(false);
    }
  };
  const replay = async () => {
    setReplaying(true);
    setBacktest(null);
    try {
      setBacktest(await api<BacktestResponse>('POST', '/v1/alerts/backtest', { ...filters, days, channel: wireChannel(channel) }));
    } catch (error) {
      setBacktest({ error: failure(error) });
    } finally {
      setReplaying(false);
    }
  };

  return (
    <div className="channel-checks">
      <div className="channel-row">
        <button type="button" onClick={() => void sendTest()} disabled={testing} data-testid="send-test">
          {testing ? 'Sending…' : 'Send test'}
        </button>
        {sent && (
          <span className={'error' in sent || !sent.ok ? 'error' : 'ok'} role="status" data-testid="test-result">
            {'error' in sent ? sent.error : `${sent.ok ? 'Delivered' : 'Not delivered'}${sent.status !== null ? ` (${sent.status})` : ''}: ${sent.detail}`}
          </span>
        )}
      </div>
      <div className="channel-row">
        <button type="button" onClick={() => void replay()} disabled={replaying} data-testid="backtest">
          {replaying ? 'Replaying…' : 'Would this alert have fired?'}
        </button>
        <label className="inline">
          over the last
          <select aria-label="Backtest days" value={days} onChange={(e) => setDays(Number(e.target.value))}>
            {[1, 2, 3, 4, 5, 6, 7].map((n) => (
              <option key={n} value={n}>
                {n} {n === 1 ? 'day' : 'days'}
              </option>
            ))}
          </select>
        </label>
      </div>
      {backtest && ('error' in backtest ? <p className="error">{backtest.error}</p> : <BacktestResult result={backtest} />)}
    </div>
  );
}

/** The firings of a backtest: ticks on a strip over the evaluated range, then a list. */
function BacktestResult({ result }: { result: BacktestResponse }) {
  const times = useTimeFormats();
  const span = Math.max(1, result.evaluatedTo - result.evaluatedFrom);
  const at = (ms: number) => ((ms - result.evaluatedFrom) / span) * 1000;
  return (
    <div className="backtest" data-testid="backtest-result">
      <p className="muted">
        {result.firings.length === 0 ? 'It would not have fired' : `It would have fired ${result.firings.length} ${result.firings.length === 1 ? 'time' : 'times'}`} in {result.windows.toLocaleString()} windows, from{' '}
        {times.full.format(new Date(result.evaluatedFrom))} to {times.full.format(new Date(result.evaluatedTo))}.
      </p>
      <svg className="backtest-strip" viewBox="0 0 1000 20" preserveAspectRatio="none" role="img" aria-label="Firings over the evaluated range" data-testid="backtest-strip">
        <rect x={0} y={9} width={1000} height={2} className="backtest-axis" />
        {result.firings.map((firing) => (
          <rect key={`${firing.at}-${firing.kind}`} x={Math.max(0, Math.min(998, at(firing.at) - 1))} y={0} width={2} height={20} className={`backtest-tick ${firing.kind}`} data-testid="backtest-tick">
            <title>{`${times.full.format(new Date(firing.at))}: ${firing.kind}, ${firing.lines} lines`}</title>
          </rect>
        ))}
      </svg>
      {result.firings.length > 0 && (
        <table className="fields">
          <thead>
            <tr>
              <th>Time</th>
              <th>Kind</th>
              <th>Lines</th>
            </tr>
          </thead>
          <tbody>
            {result.firings.map((firing) => (
              <tr key={`${firing.at}-${firing.kind}`} data-testid="backtest-firing">
                <td>{times.full.format(new Date(firing.at))}</td>
                <td>{firing.kind}</td>
                <td>{firing.lines.toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
