/**
 * RELP frames (rsyslog's Reliable Event Logging Protocol, as librelp speaks it):
 * `TXNR SP COMMAND SP DATALEN [SP DATA] LF`. A client sends `open`, then `syslog` frames (one
 * message each), then `close`; the server answers each with `rsp` under the same TXNR.
 */

export interface RelpFrame {
  txnr: number;
  command: string;
  data: Buffer;
}

export class RelpFrameError extends Error {}

const LF = 0x0a;
const SPACE = 0x20;
const MAX_TXNR_DIGITS = 9;
const MAX_COMMAND_CHARS = 32;
const MAX_DATALEN_DIGITS = 9;

/** Reads frames as chunks arrive. Throws RelpFrameError on bytes that are not RELP: the session cannot go on. */
export class RelpDeframer {
  private held: Buffer = Buffer.alloc(0);

  constructor(private readonly maxDataBytes: number) {}

  push(chunk: Buffer): RelpFrame[] {
    const data = this.held.length > 0 ? Buffer.concat([this.held, chunk]) : chunk;
    const frames: RelpFrame[] = [];
    let at = 0;
    for (;;) {
      while (at < data.length && (data[at] === LF || data[at] === 0x0d)) at++;
      const read = this.readFrame(data, at);
      if (read === undefined) break;
      frames.push(read.frame);
      at = read.next;
    }
    this.held = at >= data.length ? Buffer.alloc(0) : Buffer.from(data.subarray(at));
    return frames;
  }

  get unfinishedBytes(): number {
    return this.held.length;
  }

  private readFrame(data: Buffer, at: number): { frame: RelpFrame; next: number } | undefined {
    const txnrEnd = readWord(data, at, MAX_TXNR_DIGITS, isDigit, 'a transaction number');
    if (txnrEnd === undefined) return undefined;
    const commandEnd = readWord(data, txnrEnd + 1, MAX_COMMAND_CHARS, isLetter, 'a command');
    if (commandEnd === undefined) return undefined;
    let lengthEnd = commandEnd + 1;
    while (lengthEnd < data.length && isDigit(data[lengthEnd]) && lengthEnd - commandEnd - 1 < MAX_DATALEN_DIGITS) lengthEnd++;
    if (lengthEnd >= data.length) return undefined;
    if (lengthEnd === commandEnd + 1) throw new RelpFrameError('a frame without a data length');
    const length = Number(data.subarray(commandEnd + 1, lengthEnd).toString('latin1'));
    if (length > this.maxDataBytes) throw new RelpFrameError(`a frame of ${length} bytes, over the ${this.maxDataBytes} accepted`);
    let dataStart = lengthEnd;
    if (length > 0) {
      if (data[lengthEnd] !== SPACE) throw new RelpFrameError('a data length not followed by a space');
      dataStart = lengthEnd + 1;
    }
    const trailer = dataStart + length;
    if (trailer >= data.length) return undefined;
    if (data[trailer] !== LF) throw new RelpFrameError('a frame whose data is not followed by its trailer');
    const frame = {
      txnr: Number(data.subarray(at, txnrEnd).toString('latin1')),
      command: data.subarray(txnrEnd + 1, commandEnd).toString('latin1'),
      data: data.subarray(dataStart, trailer),
    };
    return { frame, next: trailer + 1 };
  }
}

function isDigit(byte: number): boolean {
  return byte >= 0x30 && byte <= 0x39;
}

function isLetter(byte: number): boolean {
  return (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x41 && byte <= 0x5a);
}

/** Where a word of `accepted` bytes that ends in a space ends; undefined when more bytes are needed. */
function readWord(data: Buffer, at: number, maxChars: number, accepted: (byte: number) => boolean, what: string): number | undefined {
  let end = at;
  while (end < data.length && accepted(data[end])) {
    end++;
    if (end - at > maxChars) throw new RelpFrameError(`${what} longer than ${maxChars} characters`);
  }
  if (end >= data.length) return undefined;
  if (data[end] !== SPACE || end === at) throw new RelpFrameError(`a frame that does not start with ${what}`);
  return end;
}

/** A response frame: `TXNR rsp DATALEN DATA LF`. */
export function relpResponse(txnr: number, data: string): Buffer {
  const bytes = Buffer.from(data, 'utf8');
  return Buffer.concat([Buffer.from(bytes.length > 0 ? `${txnr} rsp ${bytes.length} ` : `${txnr} rsp 0`, 'latin1'), bytes, Buffer.from('\n')]);
}

/** What the server says when it ends a session itself (shutting down): the client resends what was not acknowledged. */
export const SERVER_CLOSE = Buffer.from('0 serverclose 0\n', 'latin1');

/** The offers of an `open` frame's data: `name=value` lines (relp_version, relp_software, commands). */
export function relpOffers(data: Buffer): Map<string, string> {
  const offers = new Map<string, string>();
  for (const line of data.toString('utf8').split('\n')) {
    if (line === '') continue;
    const equals = line.indexOf('=');
    offers.set(equals < 0 ? line : line.slice(0, equals), equals < 0 ? '' : line.slice(equals + 1));
  }
  return offers;
}
