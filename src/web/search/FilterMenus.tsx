import type { Facets } from '../api-client/client.js';

type Kind = 'hosts' | 'apps' | 'levels' | 'tags';
const FACET: Record<Kind, keyof Facets> = { hosts: 'host', apps: 'app', levels: 'level', tags: 'tag' };
const TITLE: Record<Kind, string> = { hosts: 'Hosts', apps: 'Apps', levels: 'Levels', tags: 'Tags' };

interface Props {
  facets: Facets | null;
  selected: Record<Kind, string[]>;
  onChange: (kind: Kind, values: string[]) => void;
}

/** Filter menus filled from the organisation's actual values, with counts. */
export function FilterMenus({ facets, selected, onChange }: Props) {
  return (
    <div className="filters">
      {(Object.keys(FACET) as Kind[]).map((kind) => {
        const values = facets?.[FACET[kind]] ?? [];
        const chosen = selected[kind];
        // Chosen values stay listed even when the current range has none of them.
        const shown = [...values, ...chosen.filter((value) => !values.some((v) => v.value === value)).map((value) => ({ value, count: 0 }))];
        return (
          <details key={kind} className="filter" data-testid={`filter-${kind}`}>
            <summary>
              {TITLE[kind]}
              {chosen.length > 0 && <span className="badge">{chosen.length}</span>}
            </summary>
            <div className="filter-values">
              {shown.length === 0 && <p className="muted">None in this range</p>}
              {shown.map(({ value, count }) => (
                <label key={value}>
                  <input
                    type="checkbox"
                    checked={chosen.includes(value)}
                    onChange={(event) => onChange(kind, event.target.checked ? [...chosen, value] : chosen.filter((v) => v !== value))}
                  />
                  <span className="filter-value">{value || '(none)'}</span>
                  <span className="count">{count.toLocaleString()}</span>
                </label>
              ))}
            </div>
          </details>
        );
      })}
    </div>
  );
}
