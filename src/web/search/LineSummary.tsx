import type { LogLine } from '../api-client/client.js';
import type { TimeFormats } from '../shared/time-formats.js';
import { display, fieldValue, levelClass, lineText } from './line-fields.js';
import { Marked } from './Marked.js';
import { MetaBadge } from './MetaBadge.js';

const COLUMN_WIDTH: Record<string, string> = { level: '64px', host: '120px', app: '110px' };

interface Props {
  line: LogLine;
  columns: string[];
  raw: boolean;
  open: boolean;
  /** The list's time formats, made once for all its rows. */
  times: TimeFormats;
  onClick: () => void;
}

/** A line's one row: its time, the columns chosen, its text, and a mark when its meta is not searchable. */
export function LineSummary({ line, columns, raw, open, times, onClick }: Props) {
  const grid = ['178px', ...columns.map((column) => COLUMN_WIDTH[column] ?? '120px'), 'minmax(0, 1fr)'].join(' ');
  // A line with a meta badge gets one more (narrow) column for it, after its text.
  return (
    <button type="button" className="line-summary" style={{ gridTemplateColumns: line._metaUnindexed ? `${grid} auto` : grid }} aria-expanded={open} onClick={onClick}>
      <time dateTime={line.timestamp}>{times.full.format(new Date(line._ts))}</time>
      {columns.map((column) =>
        column === 'level' ? (
          <span key={column} className={`level ${levelClass(line.level)}`} data-column={column}>
            {line.level || '—'}
          </span>
        ) : (
          <span key={column} className={`column ${column === 'host' || column === 'app' ? column : ''}`} data-column={column}>
            <Marked text={display(fieldValue(line, column))} />
          </span>
        ),
      )}
      <LineText line={line} raw={raw} />
      <MetaBadge line={line} />
    </button>
  );
}

/**
 * A line's text: for a JSON line its message, else the line itself; then its other stored fields
 * (a JSON line's, or those a format parser or a parsing rule extracted) as quiet key=value chips.
 */
function LineText({ line, raw }: { line: LogLine; raw: boolean }) {
  const text = raw ? null : lineText(line);
  if (!text || (!text.json && text.fields.length === 0)) {
    return (
      <span className="text">
        <Marked text={line._line} />
      </span>
    );
  }
  return (
    <span className="text" data-json={text.json ? 'true' : undefined}>
      <Marked text={text.message} />
      {text.fields.map((field) => (
        <span key={field.path} className="kv" data-testid="kv">
          {field.path}=<Marked text={display(field.value)} />
        </span>
      ))}
    </span>
  );
}
