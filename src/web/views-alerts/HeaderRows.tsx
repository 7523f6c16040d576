import { useState } from 'react';

/** A webhook's request headers as key/value rows; rows without a name are not sent. */
export function HeaderRows({ headers, onChange }: { headers?: Record<string, string>; onChange: (headers: Record<string, string> | undefined) => void }) {
  // Rows are kept here, not derived from the object: a row being typed may have no name yet.
  const [rows, setRows] = useState<Array<[string, string]>>(() => Object.entries(headers ?? {}));
  const set = (next: Array<[string, string]>) => {
    setRows(next);
    const named = next.filter(([name]) => name.trim());
    onChange(named.length ? Object.fromEntries(named.map(([name, value]) => [name.trim(), value])) : undefined);
  };
  return (
    <div className="channel-headers" role="group" aria-label="Headers">
      {rows.map(([name, value], index) => (
        <div className="channel-row" key={index} data-testid="header-row">
          <input aria-label="Header name" placeholder="Authorization" value={name} onChange={(e) => set(rows.map((row, i) => (i === index ? [e.target.value, row[1]] : row)))} />
          <input aria-label="Header value" placeholder="Bearer …" value={value} onChange={(e) => set(rows.map((row, i) => (i === index ? [row[0], e.target.value] : row)))} />
          <button type="button" aria-label="Remove header" onClick={() => set(rows.filter((_, i) => i !== index))}>
            ×
          </button>
        </div>
      ))}
      <button type="button" onClick={() => setRows([...rows, ['', '']])}>
        + header
      </button>
    </div>
  );
}
