import { useState } from 'react';
import { ApiError, type BacktestResponse, type Channel, type TestSendResult, api } from '../api-client/client.js';
import { BacktestResult } from './BacktestResult.js';
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
      setSent(await api.testChannel(wireChannel(channel), viewid));
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
      setBacktest(await api.backtest({ ...filters, days, channel: wireChannel(channel) }));
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
