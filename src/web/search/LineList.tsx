import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useRef } from 'react';
import type { LogLine } from '../api-client/client.js';
import { useTimeFormats } from '../shared/time-zone.js';
import { LineDetails } from './LineDetails.js';
import { LineSummary } from './LineSummary.js';

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

/** Log lines, oldest at the top, virtualised so that 100,000 lines scroll smoothly. */
export function LineList(props: Props) {
  const { lines, selected, expanded } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const times = useTimeFormats();
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
              <LineSummary
                line={line}
                columns={props.columns}
                raw={props.raw}
                open={open}
                times={times}
                onClick={() => {
                  props.onSelect(item.index);
                  props.onToggle(line);
                }}
              />
              {open && <LineDetails line={line} onFilter={props.onFilter} onContext={props.onContext} />}
            </div>
          );
        })}
      </div>
    </div>
  );
}
