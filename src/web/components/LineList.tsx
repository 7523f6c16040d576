import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useRef } from 'react';
import type { LogLine } from '../api.js';
import { display, fieldValue, jsonMessage } from '../line-fields.js';
import { LineDetails } from './LineDetails.js';
import { Marked } from './Marked.js';
import { useTimeFormats } from '../time-zone.js';
import { MetaBadge } from './MetaBadge.js';

interface Props {
  lines: LogLine[];
  selected: number;
  expanded: Set<string>;
  onSelect: (index: number) => void;
  onToggle: (line: LogLine) => void;
  onFilter: (field: string, value: string, exclude?: boolean) => void;
  /** Fields shown as columns between the time and the message. */
  columns: string[];
  /** Show each line's text as received, rather than a JSON line's message and fields. */
  raw: boolean;
  onContext: (line: LogLine) => void;
  /** Near the top: load older lines. */
  onReachTop: () => void;
  /** Whether the list is scrolled to its newest line; live tail pauses when it is not. */
  onAtBottomChange: (atBottom: boolean) => void;
  /** Keep the newest line in view as lines arrive. */
  follow: boolean;
  /** Lines just added at the top (older), to keep the reader's place; serial changes each time. */
  prepended: { count: number; serial: number };
  /** Changes with every new search, whose results open at the newest line. */
  searchSerial: number;
}

const ROW = 22;
const COLUMN_WIDTH: Record<string, string> = { level: '64px', host: '120px', app: '110px' };

export function levelClass(level: string): string {
  const upper = level.toUpperCase();
  if (['FATAL', 'CRITICAL', 'EMERGENCY', 'ALERT'].includes(upper)) return 'level-fatal';
  if (upper === 'ERROR' || upper === 'SEVERE') return 'level-error';
  if (upper === 'WARN') return 'level-warn';
  if (upper === 'INFO') return 'level-info';
  if (upper === 'DEBUG' || upper === 'TRACE') return 'level-debug';
  return 'level-other';
}

/** Log lines, oldest at the top, virtualised so that 100,000 lines scroll smoothly. */
export function LineList(props: Props) {
  const { lines, selected, expanded } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const times = useTimeFormats();
  const grid = { gridTemplateColumns: ['178px', ...props.columns.map((column) => COLUMN_WIDTH[column] ?? '120px'), 'minmax(0, 1fr)'].join(' ') };
  // A line with a meta badge gets one more (narrow) column for it, after its text.
  const gridWithBadge = { gridTemplateColumns: `${grid.gridTemplateColumns} auto` };
  const virtualizer = useVirtualizer({
    count: lines.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW,
    overscan: 20,
    getItemKey: (index) => lines[index]._id,
  });

  useLayoutEffect(() => {
    if (props.prepended.count > 0) virtualizer.scrollToIndex(props.prepended.count, { align: 'start' });
  }, [props.prepended.serial]);

  useEffect(() => {
    if (props.follow && lines.length) virtualizer.scrollToIndex(lines.length - 1, { align: 'end' });
  }, [lines.length, props.follow]);

  useLayoutEffect(() => {
    if (lines.length) virtualizer.scrollToIndex(lines.length - 1, { align: 'end' });
  }, [props.searchSerial]);

  useEffect(() => {
    if (selected >= 0 && selected < lines.length) virtualizer.scrollToIndex(selected, { align: 'auto' });
  }, [selected]);

  const onScroll = () => {
    const element = scroller.current!;
    if (element.scrollTop < ROW * 5) props.onReachTop();
    props.onAtBottomChange(element.scrollHeight - element.scrollTop - element.clientHeight < ROW * 2);
  };

  return (
    <div className="line-list" ref={scroller} onScroll={onScroll} role="list" aria-label="Log lines" data-testid="line-list">
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {virtualizer.getVirtualItems().map((item) => {
          const line = lines[item.index];
          const open = expanded.has(line._id);
          return (
            <div
              key={item.key}
              data-index={item.index}
              ref={virtualizer.measureElement}
              className={`line ${item.index === selected ? 'selected' : ''} ${open ? 'open' : ''}`}
              style={{ position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${item.start}px)` }}
              role="listitem"
              data-testid="line"
            >
              <button
                type="button"
                className="line-summary"
                style={line._metaUnindexed ? gridWithBadge : grid}
                aria-expanded={open}
                onClick={() => {
                  props.onSelect(item.index);
                  props.onToggle(line);
                }}
              >
                <time dateTime={line.timestamp}>{times.full.format(new Date(line._ts))}</time>
                {props.columns.map((column) =>
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
                <LineText line={line} raw={props.raw} />
                <MetaBadge line={line} />
              </button>
              {open && <LineDetails line={line} onFilter={props.onFilter} onContext={props.onContext} />}
            </div>
          );
        })}
      </div>
    </div>
  );
}

/** A line's text: for a JSON line its message, then its other fields as quiet key=value chips. */
function LineText({ line, raw }: { line: LogLine; raw: boolean }) {
  const json = raw ? null : jsonMessage(line);
  if (!json) {
    return (
      <span className="text">
        <Marked text={line._line} />
      </span>
    );
  }
  return (
    <span className="text" data-json="true">
      <Marked text={json.message} />
      {json.fields.map((field) => (
        <span key={field.path} className="kv" data-testid="kv">
          {field.path}=<Marked text={display(field.value)} />
        </span>
      ))}
    </span>
  );
}
