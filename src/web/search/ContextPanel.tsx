import { useEffect, useRef, useState } from 'react';
import { type ContextBy, type ContextResponse, type LogLine, api } from '../api-client/client.js';
import { useTimeFormats } from '../shared/time-zone.js';
import { levelClass } from './line-fields.js';
import { Marked } from './Marked.js';

const PAGE = 20;

/** "View in context": the lines before and after one line, from the same host, app or both. */
export function ContextPanel({ line, onClose }: { line: LogLine; onClose: () => void }) {
  const [by, setBy] = useState<ContextBy>('host');
  const [context, setContext] = useState<ContextResponse | null>(null);
  const [error, setError] = useState('');
  const [exhausted, setExhausted] = useState({ before: false, after: false });
  const focus = useRef<HTMLDivElement>(null);
  const times = useTimeFormats();
  // The chosen line opens in the middle of the panel, with its neighbours above and below it.
  // (Braces: newer browsers return a promise from scrollIntoView, which React would take for a cleanup.)
  useEffect(() => {
    focus.current?.scrollIntoView({ block: 'center' });
  }, [context?.line._id]);

  useEffect(() => {
    setContext(null);
    setExhausted({ before: false, after: false });
    api.context(line, by, PAGE).then(setContext, (e) => setError(e.message));
  }, [line._id, by]);

  const more = async (side: 'before' | 'after') => {
    if (!context) return;
    const edge = side === 'before' ? context.before[0] : context.after[context.after.length - 1];
    if (!edge) return;
    const page = await api.context(edge, by, PAGE, side);
    const added = side === 'before' ? page.before : page.after;
    if (added.length < PAGE) setExhausted((current) => ({ ...current, [side]: true }));
    setContext(side === 'before' ? { ...context, before: [...added, ...context.before] } : { ...context, after: [...context.after, ...added] });
  };

  const row = (item: LogLine, isFocus = false) => (
    <div key={item._id} ref={isFocus ? focus : undefined} className={`context-line ${isFocus ? 'focus' : ''}`} data-testid={isFocus ? 'context-focus' : 'context-line'} aria-current={isFocus ? 'true' : undefined}>
      <time>{times.full.format(new Date(item._ts))}</time>
      <span className={`level ${levelClass(item.level)}`}>{item.level}</span>
      <span className="host">{item._host}</span>
      <span className="app">{item._app}</span>
      <span className="text">
        <Marked text={item._line} />
      </span>
    </div>
  );

  return (
    <div
      className="modal"
      role="dialog"
      aria-modal="true"
      aria-label="Line in context"
      onKeyDown={(event) => event.key === 'Escape' && onClose()}
      onClick={(event) => event.target === event.currentTarget && onClose()}
    >
      <div className="modal-body wide">
        <header className="modal-header">
          <h2>In context</h2>
          <div className="segmented" role="radiogroup" aria-label="Context from">
            {(['host', 'app', 'both'] as const).map((option) => (
              <button key={option} type="button" role="radio" aria-checked={by === option} className={by === option ? 'active' : ''} onClick={() => setBy(option)}>
                Same {option === 'both' ? 'host and app' : option}
              </button>
            ))}
          </div>
          <button type="button" onClick={onClose} autoFocus>
            Close
          </button>
        </header>
        {error && <p className="error">{error}</p>}
        {context && (
          <div className="context-lines">
            {context.before.length < PAGE || exhausted.before ? (
              <p className="muted load-more">No earlier lines</p>
            ) : (
              <button type="button" className="load-more" onClick={() => void more('before')}>
                Load {PAGE} earlier
              </button>
            )}
            {context.before.map((item) => row(item))}
            {row(context.line, true)}
            {context.after.map((item) => row(item))}
            {context.after.length < PAGE || exhausted.after ? (
              <p className="muted load-more">No later lines yet</p>
            ) : (
              <button type="button" className="load-more" onClick={() => void more('after')}>
                Load {PAGE} later
              </button>
            )}
          </div>
        )}
      </div>
    </div>
  );
}
