import type { LogLine, MetaUnindexedReason } from '../api-client/client.js';

/** Why a line's meta is kept as text only, in words a reader of the viewer understands. */
const WHY: Record<MetaUnindexedReason, string> = {
  'type-conflict': 'a field has another type than the one first seen',
  'daily-cap': "the organisation's daily cap on new fields was reached",
  'too-large': 'it is over the 32 KB limit',
  'not-an-object': 'it is not an object',
  unknown: 'the line was stored before the reason was recorded',
};

/**
 * A small mark on a line whose meta is stored but not searchable as fields: without it a search
 * on such a field silently misses the line, and the reader cannot tell why.
 */
export function MetaBadge({ line }: { line: LogLine }) {
  const reason = line._metaUnindexed;
  if (!reason) return null;
  const why = `meta not searchable: ${WHY[reason] ?? reason}`;
  return (
    <span className="badge meta-badge" title={why} aria-label={why} data-testid="meta-unindexed" data-reason={reason}>
      meta
    </span>
  );
}
