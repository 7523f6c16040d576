import { type ReactNode, useState } from 'react';
import type { Filters, GraphSpec, Session } from '../api-client/client.js';
import { mayEdit } from '../session/roles.js';
import { AddToBoard } from './AddToBoard.js';
import { MeasureFields } from './GraphFields.js';
import { GraphPreview } from './GraphPreview.js';
import { type GraphDraft, draftOf, searchGraph, specOf } from './graph-form.js';
import './boards.css';

/**
 * "Chart this": a field of the current search drawn over the search's range (POST /v1/viewer/chart),
 * its p95 by default, the measure and a breakdown choosable; members and above can add it to a board.
 */
export function ChartThis({ field, filters, session, onClose }: { field: string; filters: Filters; session: Session; onClose: () => void }) {
  const [draft, setDraft] = useState<GraphDraft>(() => draftOf(searchGraph(filters, { title: `p95 of ${field}`, measure: { type: 'p95', field } })));
  const [adding, setAdding] = useState(false);
  const checked = specOf(draft);
  const spec: GraphSpec | null = 'spec' in checked ? checked.spec : null;
  return (
    <aside className="chart-this" aria-label={`Chart of ${field}`} data-testid="chart-this" data-field={field}>
      <header className="graph-header">
        <h3>Chart {field}</h3>
        {mayEdit(session) && (
          <button type="button" onClick={() => setAdding(true)} disabled={!spec} data-testid="chart-add-to-board">
            Add to board
          </button>
        )}
        <button type="button" className="icon" onClick={onClose} aria-label="Close the chart">
          ×
        </button>
      </header>
      <MeasureFields draft={draft} onChange={(change) => setDraft({ ...draft, ...change, title: titleOf({ ...draft, ...change }) })} />
      {'problem' in checked && <p className="error">{checked.problem}</p>}
      <GraphPreview spec={spec} from={filters.from} to={filters.to} />
      {adding && spec && <AddToBoard graph={spec} onClose={() => setAdding(false)} />}
    </aside>
  );
}

const titleOf = (draft: GraphDraft) => (draft.measure === 'count' ? 'lines' : `${draft.measure} of ${draft.field}`) + (draft.breakdownField.trim() ? ` by ${draft.breakdownField.trim()}` : '');

/**
 * The search page's handle on "chart this": `open(field)` is what the fields sidebar's
 * onChartField takes, and `panel` is the chart to show (nothing until a field is chosen).
 */
export function useChartThis(filters: Filters, session: Session): { open: (field: string) => void; panel: ReactNode } {
  const [field, setField] = useState<string | null>(null);
  return {
    open: setField,
    panel: field && <ChartThis key={field} field={field} filters={filters} session={session} onClose={() => setField(null)} />,
  };
}
