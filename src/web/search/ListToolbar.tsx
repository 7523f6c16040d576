import { useState } from 'react';

interface Props {
  columns: string[];
  onColumns: (columns: string[]) => void;
  /** Field names seen in the lines, offered as columns. */
  fields: string[];
  raw: boolean;
  onRaw: (raw: boolean) => void;
}

/** Above the lines: the columns shown (add any field, remove one), and raw text or JSON messages. */
export function ListToolbar({ columns, onColumns, fields, raw, onRaw }: Props) {
  const [typed, setTyped] = useState('');
  const add = () => {
    const name = typed.trim();
    if (name && !columns.includes(name)) onColumns([...columns, name]);
    setTyped('');
  };
  return (
    <div className="list-toolbar" data-testid="list-toolbar">
      <span className="muted">Columns</span>
      <span className="chips">
        {columns.map((column) => (
          <span key={column} className="chip" data-testid="column-chip">
            {column}
            <button type="button" className="icon" aria-label={`Remove column ${column}`} onClick={() => onColumns(columns.filter((kept) => kept !== column))}>
              ×
            </button>
          </span>
        ))}
      </span>
      <form
        className="add-column"
        onSubmit={(event) => {
          event.preventDefault();
          add();
        }}
      >
        <input list="column-fields" value={typed} onChange={(e) => setTyped(e.target.value)} placeholder="Add column" aria-label="Add a column (field name)" data-testid="add-column" />
        <datalist id="column-fields">
          {fields
            .filter((field) => !columns.includes(field))
            .map((field) => (
              <option key={field} value={field} />
            ))}
        </datalist>
        <button type="submit">Add</button>
      </form>
      <label className="inline raw-toggle">
        <input type="checkbox" checked={raw} onChange={(e) => onRaw(e.target.checked)} data-testid="raw-toggle" /> Raw text
      </label>
    </div>
  );
}
