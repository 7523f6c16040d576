import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SyslogDeframer } from './framing.js';

const LIMIT = 64;
const texts = (deframer: SyslogDeframer, ...chunks: string[]) => chunks.flatMap((chunk) => deframer.push(Buffer.from(chunk)).map((frame) => frame.bytes.toString()));

describe('RFC 6587 framing', () => {
  test('octet counting and newline framing, mixed on one connection', () => {
    const deframer = new SyslogDeframer({ maxMessageBytes: LIMIT });
    assert.deepEqual(texts(deframer, '11 <13>1 a b c<13>plain one\n', '5 <1>x\n'), ['<13>1 a b c', '<13>plain one', '<1>x\n']);
  });

  test('frames split anywhere across chunks, the count itself included', () => {
    const stream = '12 <13>counted!<14>newline framed\n3 abc';
    for (let cut = 0; cut <= stream.length; cut++) {
      const deframer = new SyslogDeframer({ maxMessageBytes: LIMIT });
      assert.deepEqual(texts(deframer, stream.slice(0, cut), stream.slice(cut)), ['<13>counted!', '<14>newline framed', 'abc'], `cut at ${cut}`);
      assert.equal(deframer.unfinishedBytes, 0);
    }
  });

  test('a count larger than the limit keeps the first bytes and skips the rest, then reads on', () => {
    const deframer = new SyslogDeframer({ maxMessageBytes: 8 });
    const frames = deframer.push(Buffer.from('20 <13>456789abcdefghij5 <1>ok'));
    assert.deepEqual(
      frames.map((frame) => [frame.bytes.toString(), frame.cut]),
      [
        ['<13>4567', true],
        ['<1>ok', false],
      ],
    );
  });

  test('a newline-framed message past the limit is cut, and its rest skipped to the newline', () => {
    const deframer = new SyslogDeframer({ maxMessageBytes: 8 });
    const frames = [...deframer.push(Buffer.from('<13>0123456789')), ...deframer.push(Buffer.from('more\n<1>next\n'))];
    assert.deepEqual(
      frames.map((frame) => [frame.bytes.toString(), frame.cut]),
      [
        ['<13>0123', true],
        ['<1>next', false],
      ],
    );
  });

  test('a frame the stream ends in the middle of is unfinished (the listener counts it as truncated)', () => {
    const deframer = new SyslogDeframer({ maxMessageBytes: LIMIT });
    assert.deepEqual(texts(deframer, '40 <13>only part'), []);
    assert.ok(deframer.unfinishedBytes > 0);
  });

  test('a line without <PRI> that starts with digits is a newline-framed message', () => {
    const deframer = new SyslogDeframer({ maxMessageBytes: LIMIT });
    assert.deepEqual(texts(deframer, '2026-11-26 text\n'), ['2026-11-26 text']);
  });
});
