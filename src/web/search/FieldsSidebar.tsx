import { useState } from 'react';
import type { FieldSummary, Filters } from '../api-client/client.js';
import { TYPE_MARK, fieldCountText, findFields, sharePercent, shareText, statText } from './field-list.js';
import { filterTerm } from './query-terms.js';
import { useFieldStats } from './useFieldStats.js';

interface Props {
  filters: Filters;
  /** Adds `field:value` (or `-field:value`) to the query. */
  onFilter: (field: string, value: string, exclude?: boolean) => void;
  /** Given, a numeric field offers "Chart this", which calls it with the field's name. */
  onChartField?: (field: string) => void;
}

/**
 * The fields of the current search's lines, as Kibana's field list shows them: how many lines
 * have each, its top values with exact counts and share bars, and a number's stats. A value adds
 * itself to the search; ⊖ leaves its lines out.
 */
export function FieldsSidebar({ filters, onFilter, onChartField }: Props) {
  const { answer, loading, failed } = useFieldStats(filters);
  const [typed, setTyped] = useState('');
  const shown = answer ? findFields(answer.fields, typed) : [];
  return (
    <section className="field-list" data-testid="fields-sidebar" aria-busy={loading} aria-label="Fields of this search">
      <div className="field-list-header">
        <h2>Fields</h2>
        {answer && (
          <span className="count" data-testid="field-count">
            {fieldCountText(shown.length, answer.fields.length)}
          </span>
        )}
      </div>
      <input type="search" value={typed} onChange={(event) => setTyped(event.target.value)} placeholder="Find a field" aria-label="Find a field" data-testid="find-field" />
      {failed && <p className="muted">The fields could not be counted for this search.</p>}
      {answer && answer.fields.length === 0 && <p className="muted">No lines in this range</p>}
      {answer && answer.fields.length > 0 && shown.length === 0 && <p className="muted">No field named so</p>}
      {answer && shown.map((field) => <FieldEntry key={field.name} field={field} total={answer.lines} onFilter={onFilter} onChartField={onChartField} />)}
    </section>
  );
}

function FieldEntry({ field, total, onFilter, onChartField }: { field: FieldSummary; total: number } & Pick<Props, 'onFilter' | 'onChartField'>) {
  return (
    <details className="field-entry" data-testid="field-entry" data-field={field.name}>
      <summary>
        <span className="field-type" title={field.type}>
          {TYPE_MARK[field.type]}
        </span>
        <span className="field-name">{field.name}</span>
        <span className="count" title={`${field.lines.toLocaleString('en')} of ${total.toLocaleString('en')} lines`}>
          {shareText(field.lines, total)}
        </span>
      </summary>
      <ul className="field-top">
        {field.top.map((value) => (
          <li key={value.value} data-testid="field-value" data-value={value.value}>
            <button type="button" className="field-top-value" title={`Add ${filterTerm(field.name, value.value)} to the query`} onClick={() => onFilter(field.name, value.value)}>
              <span className="field-top-text">{value.value === '' ? '(empty)' : value.value}</span>
              <span className="share" aria-hidden="true">
                <span style={{ width: `${sharePercent(value.lines, field.lines)}%` }} />
              </span>
            </button>
            <span className="count" title={`${value.lines.toLocaleString('en')} lines`} data-testid="field-value-lines">
              {shareText(value.lines, field.lines)}
            </span>
            <button type="button" className="icon" aria-label={`Filter out ${filterTerm(field.name, value.value)}`} title="Leave these lines out" data-testid="field-value-out" onClick={() => onFilter(field.name, value.value, true)}>
              ⊖
            </button>
          </li>
        ))}
      </ul>
      {field.stats && (
        <dl className="field-stats" data-testid="field-stats">
          {(['min', 'max', 'avg', 'p50', 'p95', 'p99'] as const).map((stat) => (
            <div key={stat}>
              <dt>{stat}</dt>
              <dd data-stat={stat}>{statText(field.stats![stat])}</dd>
            </div>
          ))}
        </dl>
      )}
      {field.type === 'number' && onChartField && (
        <button type="button" className="chart-field" data-testid="chart-field" onClick={() => onChartField(field.name)}>
          Chart this
        </button>
      )}
    </details>
  );
}
