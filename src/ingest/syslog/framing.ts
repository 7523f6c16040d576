/**
 * Syslog over a stream (RFC 6587): each frame is octet-counted (`<length> <message>`, as RFC 5425
 * and syslog-ng's syslog() driver send) or ends at a newline (non-transparent framing, as
 * rsyslog's omfwd and `logger` send by default). The two may be mixed on one connection; each
 * frame says which it is by its first byte: a digit counts, anything else is a message.
 */

export interface FramingLimits {
  /**
   * Bytes of one message kept; the rest of a longer frame is read and skipped (the line is cut
   * later, as on HTTP). Bounds what a connection holds, whatever count a sender claims.
   */
  maxMessageBytes: number;
}

/** A message's bytes; `cut` when the frame was longer than the limit and only its start is kept. */
export interface Frame {
  bytes: Buffer;
  cut: boolean;
}

const LF = 0x0a;
const SPACE = 0x20;

function isDigit(byte: number): boolean {
  return byte >= 0x30 && byte <= 0x39;
}

const NOT_COUNTED = -1;

/** Octet counts have at most this many digits (RFC 6587 allows any; nothing sends more than a GB). */
const MAX_COUNT_DIGITS = 10;

/** Reads frames from a byte stream, as the chunks arrive; holds the unfinished frame between chunks. */
export class SyslogDeframer {
  private held: Buffer = Buffer.alloc(0);
  /** Bytes still to skip of an octet-counted frame longer than the limit. */
  private skipCounted = 0;
  /** Skipping to the next newline: a newline-framed message longer than the limit, or garbage. */
  private skipToNewline = false;

  constructor(private readonly limits: FramingLimits) {}

  /** The frames completed by this chunk. */
  push(chunk: Buffer): Frame[] {
    const events: Frame[] = [];
    let data = this.held.length > 0 ? Buffer.concat([this.held, chunk]) : chunk;
    let at = 0;
    for (;;) {
      if (this.skipCounted > 0) {
        const skipped = Math.min(this.skipCounted, data.length - at);
        this.skipCounted -= skipped;
        at += skipped;
        if (this.skipCounted > 0) break;
      }
      if (this.skipToNewline) {
        const newline = data.indexOf(LF, at);
        if (newline < 0) {
          at = data.length;
          break;
        }
        this.skipToNewline = false;
        at = newline + 1;
      }
      if (at >= data.length) break;
      const first = data[at];
      if (first === LF || first === 0x0d || first === 0) {
        at++; // blank frames and stray separators between frames
        continue;
      }
      const counted = isDigit(first) ? this.readCounted(data, at, events) : NOT_COUNTED;
      if (counted === undefined) break; // needs more bytes
      if (counted !== NOT_COUNTED) at = counted;
      else {
        const newline = data.indexOf(LF, at);
        if (newline < 0) {
          if (data.length - at > this.limits.maxMessageBytes) {
            events.push({ bytes: Buffer.from(data.subarray(at, at + this.limits.maxMessageBytes)), cut: true });
            this.skipToNewline = true;
            at = data.length;
          }
          break;
        }
        const end = newline - at > this.limits.maxMessageBytes ? at + this.limits.maxMessageBytes : newline;
        events.push({ bytes: data.subarray(at, end), cut: end < newline });
        at = newline + 1;
      }
    }
    // Keep only the unfinished frame, copied so the chunk it came from can be collected.
    this.held = at >= data.length ? Buffer.alloc(0) : Buffer.from(data.subarray(at));
    data = Buffer.alloc(0);
    return events;
  }

  /** Bytes of an unfinished frame when the stream ended: a truncated frame, lost with the connection. */
  get unfinishedBytes(): number {
    return this.held.length;
  }

  /**
   * An octet-counted frame at `at`: returns where the next frame starts, undefined when the
   * frame is not complete yet, or NOT_COUNTED when the digits are not followed by a space: then
   * the frame is a newline-framed message that starts with a digit (a line without <PRI>).
   */
  private readCounted(data: Buffer, at: number, events: Frame[]): number | typeof NOT_COUNTED | undefined {
    let digitsEnd = at;
    while (digitsEnd < data.length && isDigit(data[digitsEnd]) && digitsEnd - at < MAX_COUNT_DIGITS) digitsEnd++;
    if (digitsEnd >= data.length) return undefined;
    if (data[digitsEnd] !== SPACE) return NOT_COUNTED;
    const count = Number(data.subarray(at, digitsEnd).toString('latin1'));
    const start = digitsEnd + 1;
    if (count === 0) return start;
    if (count > this.limits.maxMessageBytes) {
      // Keep the first part and skip the rest as it arrives: the line is cut, as on HTTP.
      if (data.length - start < this.limits.maxMessageBytes) return undefined;
      events.push({ bytes: Buffer.from(data.subarray(start, start + this.limits.maxMessageBytes)), cut: true });
      this.skipCounted = count - this.limits.maxMessageBytes;
      return start + this.limits.maxMessageBytes;
    }
    if (data.length - start < count) return undefined;
    events.push({ bytes: data.subarray(start, start + count), cut: false });
    return start + count;
  }
}
