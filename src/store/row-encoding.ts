import type { BufferPool } from '../lib/buffer-pool.js';
import type { StoredLine } from './types.js';

/**
 * Rows travel to the engine as TabSeparated, not JSONEachRow: ClickHouse parses TSV without
 * matching key names or JSON escapes, which made the same insert about a third faster
 * (docs/performance.md). The columns are named in the INSERT, so their order here is the only
 * contract and the table may gain columns freely.
 */
export const INSERT_COLUMNS = [
  // A request's rows share these six: they lead, so that encodeRow writes them as one string.
  'account', 'batch_id', 'host', 'ip', 'mac', 'tags',
  'ts', 'id', 'app', 'level', 'line', 'logtype', 'fields', 'meta', 'meta_indexed',
  // Empty on most lines: written as one constant when all four are.
  'env', 'file', 'meta_note', 'extra',
  'size',
] as const;

const ESCAPABLE = /[\\\t\n\r]/g;
const QUOTED_ESCAPABLE = /[\\\t\n\r']/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', "'": "\\'" };
const escapeChar = (char: string) => ESCAPES[char];

/**
 * Whether a field holds a character TSV escapes. Four native searches, not one regular expression:
 * they took about half its time on a line's six text fields (about 0.1 µs a line, docs/performance.md).
 */
function needsEscape(value: string): boolean {
  return value.indexOf('\\') >= 0 || value.indexOf('\t') >= 0 || value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0;
}

/** A string field in TSV's escaped form (backslash, tab and line breaks escaped). */
function field(value: string): string {
  return value !== '' && needsEscape(value) ? value.replace(ESCAPABLE, escapeChar) : value;
}

/** An Array(String) field: a bracketed list of single-quoted strings. */
function list(values: string[]): string {
  let text = '[';
  for (let i = 0; i < values.length; i++) text += `${i > 0 ? ',' : ''}'${values[i].replace(QUOTED_ESCAPABLE, escapeChar)}'`;
  return text + ']';
}

/** DateTime64(3) from Unix milliseconds, as decimal seconds (the unambiguous text form). */
function seconds(ms: number): string {
  // Integer arithmetic for the usual case: toFixed costs several times as much, on every row.
  if (!Number.isSafeInteger(ms) || ms < 0) return (ms / 1000).toFixed(3);
  const milliseconds = ms % 1000;
  return `${(ms - milliseconds) / 1000}.${milliseconds < 10 ? '00' : milliseconds < 100 ? '0' : ''}${milliseconds}`;
}

/** DateTime64 text of the last time encoded: a request's rows often share their time. */
let lastTs = Number.NaN;
let lastSeconds = '';

function tsSeconds(ms: number): string {
  if (ms !== lastTs) {
    lastSeconds = seconds(ms);
    lastTs = ms;
  }
  return lastSeconds;
}

/** The columns every row of one request shares (INSERT_COLUMNS' first six), as last encoded. */
let shared: Pick<StoredLine, 'account' | 'batch_id' | 'host' | 'ip' | 'mac' | 'tags'> | undefined;
let sharedText = '';

/**
 * The first six columns, tab-terminated. A request's rows share them (host unless a line names
 * its own), so they are encoded once a request rather than once a row: each part of a row's
 * template is one more string V8 joins and later flattens.
 */
function sharedColumns(row: StoredLine): string {
  if (
    shared === undefined || row.batch_id !== shared.batch_id || row.account !== shared.account || row.host !== shared.host ||
    row.ip !== shared.ip || row.mac !== shared.mac || row.tags !== shared.tags
  ) {
    sharedText = `${field(row.account)}\t${field(row.batch_id)}\t${field(row.host)}\t${field(row.ip)}\t${field(row.mac)}\t${list(row.tags)}\t`;
    shared = { account: row.account, batch_id: row.batch_id, host: row.host, ip: row.ip, mac: row.mac, tags: row.tags };
  }
  return sharedText;
}

/** env, file, meta_note and extra, tab-separated: on most lines all four are empty. */
function rareColumns(row: StoredLine): string {
  const note = row.meta_note ?? '';
  if (row.env === '' && row.file === '' && note === '' && row.extra === '') return '\t\t\t';
  return `${field(row.env)}\t${field(row.file)}\t${field(note)}\t${field(row.extra)}`;
}

/** One row of INSERT_COLUMNS, tab-separated and newline-terminated. */
export function encodeRow(row: StoredLine): string {
  return (
    `${sharedColumns(row)}${tsSeconds(row.ts)}\t${row.id}\t${field(row.app)}\t${field(row.level)}\t${field(row.line)}\t` +
    `${field(row.logtype)}\t${field(row.fields)}\t${field(row.meta)}\t${row.meta_indexed ? 'true' : 'false'}\t${rareColumns(row)}\t${row.size}\n`
  );
}

/** Rows' text gathered before a write: a flat string this long stays off V8's large-object pages. */
const WRITE_CHARS = 32 * 1024;

/**
 * Rows encoded into UTF-8 as they come, written into one growing buffer some 32 K characters at a
 * time. Joining a thousand rows into one string and converting that made V8 build the whole text
 * as one string first, over 128 KB and so on pages of its own, mapped and faulted in for each
 * request; with the conversion that cost about twice the encoding itself (docs/performance.md).
 * Writing each row alone costs a call per row instead.
 */
export class EncodedRows {
  private bytes: Buffer;
  private used = 0;
  private count = 0;
  private pending = '';
  private writtenChars = 0;
  private givenBack = false;

  /**
   * `expectedBytes`: a guess at the final size (the request body's size is a good one). With a
   * `pool`, the buffer comes from it, and `giveBack` returns it once the rows are written.
   */
  constructor(
    expectedBytes = 64 * 1024,
    private readonly pool?: BufferPool,
  ) {
    const bytes = Math.max(4096, expectedBytes);
    this.bytes = pool ? pool.take(bytes) : Buffer.allocUnsafe(bytes);
  }

  add(row: StoredLine): void {
    this.pending += encodeRow(row);
    this.count++;
    if (this.pending.length >= WRITE_CHARS) this.write();
  }

  /** Characters of text encoded so far (UTF-16 units, as String.length counts). */
  get chars(): number {
    return this.writtenChars + this.pending.length;
  }

  get rows(): number {
    return this.count;
  }

  /**
   * The rows' bytes: a view of a pooled buffer, valid until `giveBack`; any other buffer is copied
   * when most of it went unused, so that a queued insert holds no slack.
   */
  bytesWritten(): Buffer {
    if (this.pending !== '') this.write();
    const written = this.bytes.subarray(0, this.used);
    const pooled = this.pool?.keeps(this.bytes) ?? false;
    return !pooled && this.used * 2 < this.bytes.length ? Buffer.from(written) : written;
  }

  /** Returns a pooled buffer once nothing reads `bytesWritten()` any more (its insert is written). */
  giveBack(): void {
    // Once only: a buffer given twice would be handed to two takers.
    if (this.givenBack) return;
    this.givenBack = true;
    this.pool?.give(this.bytes);
  }

  private write(): void {
    const text = this.pending;
    this.pending = '';
    this.writtenChars += text.length;
    // Most text is ASCII, one byte a character: ask for the exact length only when the worst case
    // (3 bytes a UTF-16 unit) might not fit, so a buffer sized to the body is not doubled for nothing.
    const room = text.length * 3 <= this.bytes.length - this.used ? 0 : Buffer.byteLength(text, 'utf8');
    if (this.used + room > this.bytes.length) {
      const needed = this.used + room;
      const grown = this.pool ? this.pool.take(Math.max(this.bytes.length * 2, needed)) : Buffer.allocUnsafe(Math.max(this.bytes.length * 2, needed));
      this.bytes.copy(grown, 0, 0, this.used);
      this.pool?.give(this.bytes);
      this.bytes = grown;
    }
    this.used += this.bytes.write(text, this.used, 'utf8');
  }
}

export function encodeRows(rows: StoredLine[]): Buffer {
  const encoded = new EncodedRows();
  for (const row of rows) encoded.add(row);
  return encoded.bytesWritten();
}
