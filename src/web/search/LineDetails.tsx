import type { LogLine } from '../api-client/client.js';
import { useTimeFormats } from '../shared/time-zone.js';
import { CopyButton } from './CopyButton.js';
import { detailRows, rowValues } from './line-fields.js';
import { Marked } from './Marked.js';
import { MetaBadge } from './MetaBadge.js';

interface Props {
  line: LogLine;
  /** Adds `field:value` (or `-field:value`) to the query. */
  onFilter: (field: string, value: string, exclude?: boolean) => void;
  onContext: (line: LogLine) => void;
}

/** An expanded line: the raw line, and a table of every field with copy, "filter for" and "filter out". */
export function LineDetails({ line, onFilter, onContext }: Props) {
  const times = useTimeFormats();
  return (
    <div className="line-details" data-testid="line-details">
      <div className="line-actions">
        <CopyButton text={line._line} label="Copy raw line">
          Copy raw line
        </CopyButton>
        <button type="button" onClick={() => onContext(line)}>
          View in context
        </button>
        <MetaBadge line={line} />
      </div>
      <pre className="raw-line">
        <Marked text={line._line} />
      </pre>
      <table className="fields">
        <tbody>
          {detailRows(line).map((row) => {
            const values = rowValues(row.value);
            return (
              <tr key={row.label} data-testid="field-row" data-field={row.label}>
                <th>{row.label}</th>
                <td className={row.label === 'timestamp' ? 'nowrap' : ''}>
                  {values.map((text, index) =>
                    row.field ? (
                      <FieldValue key={index} field={row.field} text={text} onFilter={onFilter} />
                    ) : (
                      <span key={index}>{row.label === 'timestamp' ? `${times.full.format(new Date(line._ts))} (${text})` : text}</span>
                    ),
                  )}
                </td>
                <td>
                  <CopyButton text={values.join(', ')} label={`Copy ${row.label}`} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** A searchable value: click it (or ⊕) to add it to the query, ⊖ to leave its lines out. */
function FieldValue({ field, text, onFilter }: { field: string; text: string; onFilter: Props['onFilter'] }) {
  return (
    <span className="field-cell">
      <button type="button" className="field-value" title={`Add ${field}:${text} to the query`} onClick={() => onFilter(field, text)}>
        <Marked text={text} />
      </button>
      <button type="button" className="icon" aria-label={`Filter for ${field}:${text}`} title="Filter for this value" data-testid="filter-for" onClick={() => onFilter(field, text)}>
        ⊕
      </button>
      <button type="button" className="icon" aria-label={`Filter out ${field}:${text}`} title="Filter out this value" data-testid="filter-out" onClick={() => onFilter(field, text, true)}>
        ⊖
      </button>
    </span>
  );
}
