import { useState } from 'react';
import type { LogLine } from '../api.js';
import { type Leaf, display, leaves, parsedJson } from '../line-fields.js';
import { useTimeFormats } from '../time-zone.js';
import { Marked } from './Marked.js';
import { MetaBadge } from './MetaBadge.js';

interface Props {
  line: LogLine;
  /** Adds `field:value` (or `-field:value`) to the query. */
  onFilter: (field: string, value: string, exclude?: boolean) => void;
  onContext: (line: LogLine) => void;
}

interface Row {
  label: string;
  /** The name the search language finds it by; absent for fields it cannot search. */
  field?: string;
  value: unknown;
}

/**
 * A value as a query term: bare when the language reads it back as the same value, else a quoted
 * phrase (which also matches numbers). A leading < > = - or * would be read as an operator.
 */
export function quote(value: string): string {
  return /^[^\s()"':[\]\\<>=*-][^\s()"':[\]\\]*$/.test(value) && !['AND', 'OR', 'NOT'].includes(value) ? value : `"${value.replace(/["\\]/g, '\\$&')}"`;
}

function rows(line: LogLine): Row[] {
  const found: Row[] = [
    { label: 'timestamp', value: line.timestamp },
    { label: 'host', field: 'host', value: line._host },
    { label: 'app', field: 'app', value: line._app },
    { label: 'level', field: 'level', value: line.level },
    { label: 'file', field: 'file', value: line._file },
    { label: 'env', field: 'env', value: line.env },
    { label: 'tag', field: 'tag', value: line.tags?.length ? line.tags : '' },
  ];
  // A JSON line's fields by the names it was sent with (the search also knows the stored `_status` form by that name).
  const parsed = parsedJson(line);
  if (parsed) found.push(...leaves(parsed, '').map((leaf: Leaf) => ({ label: leaf.path, field: leaf.path, value: leaf.value })));
  if (line.meta !== undefined && line.meta !== null) found.push(...leaves(line.meta, 'meta').map((leaf) => ({ label: leaf.path, field: leaf.path, value: leaf.value })));
  found.push({ label: '_mezmo_line_size', field: '_mezmo_line_size', value: line._mezmo_line_size });
  for (const key of ['_logtype', '_ip', '_mac']) found.push({ label: key, value: line[key] });
  return found.filter((row) => row.value !== '' && row.value !== undefined && row.value !== null);
}

function CopyButton({ text, label, children = 'copy' }: { text: string; label: string; children?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="copy"
      aria-label={label}
      title={label}
      onClick={() =>
        void navigator.clipboard?.writeText(text).then(() => {
          setCopied(true);
          setTimeout(() => setCopied(false), 1500);
        })
      }
    >
      {copied ? 'copied' : children}
    </button>
  );
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
          {rows(line).map((row) => {
            // An array's values are searched one by one: each is its own value to filter on.
            const values = Array.isArray(row.value) && row.value.every((item) => typeof item !== 'object' || item === null) ? row.value.map(display) : [display(row.value)];
            return (
              <tr key={row.label} data-testid="field-row" data-field={row.label}>
                <th>{row.label}</th>
                <td className={row.label === 'timestamp' ? 'nowrap' : ''}>
                  {values.map((text, index) =>
                    row.field ? (
                      <span key={index} className="field-cell">
                        <button type="button" className="field-value" title={`Add ${row.field}:${text} to the query`} onClick={() => onFilter(row.field!, text)}>
                          <Marked text={text} />
                        </button>
                        <button type="button" className="icon" aria-label={`Filter for ${row.field}:${text}`} title="Filter for this value" data-testid="filter-for" onClick={() => onFilter(row.field!, text)}>
                          ⊕
                        </button>
                        <button type="button" className="icon" aria-label={`Filter out ${row.field}:${text}`} title="Filter out this value" data-testid="filter-out" onClick={() => onFilter(row.field!, text, true)}>
                          ⊖
                        </button>
                      </span>
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
