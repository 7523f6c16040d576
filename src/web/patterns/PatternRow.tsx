import type { LogPattern } from '../api-client/client.js';
import { useTimeFormats } from '../shared/time-zone.js';
import { Sparkline } from './Sparkline.js';
import { formatShare, templateParts } from './pattern-actions.js';

interface Props {
  pattern: LogPattern;
  interval: number;
  onSearch: (pattern: LogPattern) => void;
  /** Absent for people who may not create exclusion rules. */
  onExclude?: (pattern: LogPattern) => void;
}

/** One pattern: its template with the placeholders marked, its numbers, its volume and its actions. */
export function PatternRow({ pattern, interval, onSearch, onExclude }: Props) {
  const formats = useTimeFormats();
  // A pattern without a constant word has no search that tells its lines apart, so neither action.
  const searchable = pattern.query !== '';
  const why = searchable ? undefined : 'Every word of this pattern varies: no search finds only its lines';
  return (
    <tr data-testid="pattern-row" data-pattern={pattern.id}>
      <td className="pattern-count" data-testid="pattern-count">
        {pattern.lines.toLocaleString()}
      </td>
      <td className="pattern-share muted">{formatShare(pattern.share)}</td>
      <td className="pattern-template">
        {pattern.new && (
          <span className="pattern-new" data-testid="pattern-new" title="No line of this pattern came in the same length of time before the range">
            new
          </span>
        )}
        <code title={pattern.example} data-testid="pattern-template">
          {templateParts(pattern.template).map((part, at) =>
            part.placeholder ? (
              <mark key={at} className="placeholder">
                {part.text}
              </mark>
            ) : (
              <span key={at}>{part.text}</span>
            ),
          )}
        </code>
      </td>
      <td className="pattern-times muted">
        {formats.full.format(pattern.first)}
        <br />
        {formats.full.format(pattern.last)}
      </td>
      <td>
        <Sparkline volume={pattern.volume} interval={interval} />
      </td>
      <td className="pattern-actions">
        <button type="button" disabled={!searchable} title={why ?? `Search for ${pattern.query}`} onClick={() => onSearch(pattern)}>
          Search
        </button>
        {onExclude && (
          <button type="button" disabled={!searchable} title={why ?? 'Keep lines like these out of the store'} onClick={() => onExclude(pattern)}>
            Exclude
          </button>
        )}
      </td>
    </tr>
  );
}
