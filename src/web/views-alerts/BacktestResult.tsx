import type { BacktestResponse } from '../api-client/client.js';
import { useTimeFormats } from '../shared/time-zone.js';

/** The firings of a backtest: ticks on a strip over the evaluated range, then a list. */
export function BacktestResult({ result }: { result: BacktestResponse }) {
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
