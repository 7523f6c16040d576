import { useState } from 'react';
import type { LogLine } from '../api.js';

interface Props {
  line: LogLine;
  /** Adds `field:value` to the query. */
  onFilter: (field: string, value: string) => void;
  onContext: (line: LogLine) => void;
}

/** Built-in record fields and the search field each one is found under. */
const SEARCH_FIELD: Record<string, string> = { _host: 'host', _app: 'app', level: 'level', _file: 'file', env: 'env' };
const HIDDEN = new Set(['_line', '_account', '_bid', '_ingester', '_id']);
/** Shown, but not fields the search language can look up. */
const NOT_SEARCHABLE = new Set(['_ts', 'timestamp', '_logtype', '_ip', '_mac']);

function quote(value: string): string {
  return /^[^\s()"':[\]]+$/.test(value) ? value : `"${value.replace(/["\\]/g, '\\$&')}"`;
}

function Tree({ value, path, onFilter }: { value: unknown; path: string; onFilter: Props['onFilter'] }) {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    return (
      <ul className="tree">
        {Object.entries(value as Record<string, unknown>).map(([key, child]) => (
          <li key={key}>
            <span className="tree-key">{key}</span>: <Tree value={child} path={path ? `${path}.${key}` : key} onFilter={onFilter} />
          </li>
        ))}
      </ul>
    );
  }
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return (
    <button type="button" className="field-value" title={`Add ${path}:${text} to the query`} onClick={() => onFilter(path, text)}>
      {text}
    </button>
  );
}

/** An expanded line: its fields and meta as a tree (click a value to filter), copy, and context. */
export function LineDetails({ line, onFilter, onContext }: Props) {
  const [copied, setCopied] = useState(false);
  const fields = Object.entries(line).filter(([key, value]) => !HIDDEN.has(key) && key !== 'meta' && key !== 'tags' && value !== '' && value !== undefined);
  return (
    <div className="line-details" data-testid="line-details">
      <div className="line-actions">
        <button
          type="button"
          onClick={() =>
            void navigator.clipboard?.writeText(line._line).then(() => {
              setCopied(true);
              setTimeout(() => setCopied(false), 1500);
            })
          }
        >
          {copied ? 'Copied' : 'Copy raw line'}
        </button>
        <button type="button" onClick={() => onContext(line)}>
          View in context
        </button>
      </div>
      <pre className="raw-line">{line._line}</pre>
      <table className="fields">
        <tbody>
          {fields.map(([key, value]) => (
            <tr key={key}>
              <th>{key}</th>
              <td>
                {NOT_SEARCHABLE.has(key) ? (
                  String(value)
                ) : (
                  <Tree value={value} path={SEARCH_FIELD[key] ?? key} onFilter={(field, text) => onFilter(field, text)} />
                )}
              </td>
            </tr>
          ))}
          {line.tags && line.tags.length > 0 && (
            <tr>
              <th>tags</th>
              <td>
                {line.tags.map((tag) => (
                  <button key={tag} type="button" className="field-value" onClick={() => onFilter('tag', tag)}>
                    {tag}
                  </button>
                ))}
              </td>
            </tr>
          )}
          {line.meta !== undefined && (
            <tr>
              <th>meta</th>
              <td>
                <Tree value={line.meta} path="meta" onFilter={onFilter} />
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}

export { quote };
