import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type InsertPayload, payloadBytes } from '../store/executor.js';
import { GroupCommitBatcher } from './batcher.js';

/** A store write that completes when the test says so. */
function controllableWrite() {
  const writes: Array<{ payload: string; lines: number; finish: (error?: Error) => void }> = [];
  const write = (payload: InsertPayload, lines: number) =>
    new Promise<void>((resolve, reject) => {
      writes.push({ payload: payloadBytes(payload).toString(), lines, finish: (error) => (error ? reject(error) : resolve()) });
    });
  return { writes, write };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('requests arriving while a write runs share the next write, and settle only when it is done', async () => {
  const { writes, write } = controllableWrite();
  const batcher = new GroupCommitBatcher(write, { maxBatchLines: 1000 });
  const settled: string[] = [];
  const first = batcher.submit(Buffer.from('a\n'), 1).then(() => settled.push('a'));
  await tick();
  assert.equal(writes.length, 1);
  const second = batcher.submit(Buffer.from('b\n'), 1).then(() => settled.push('b'));
  const third = batcher.submit(Buffer.from('c\nd\n'), 2).then(() => settled.push('c'));
  await tick();
  assert.equal(writes.length, 1, 'no second write while the first runs');
  assert.deepEqual(settled, []);
  writes[0].finish();
  await first;
  await tick();
  assert.equal(writes.length, 2);
  assert.equal(writes[1].payload, 'b\nc\nd\n');
  assert.equal(writes[1].lines, 3);
  assert.deepEqual(settled, ['a'], 'b and c wait for their own write');
  writes[1].finish();
  await Promise.all([second, third]);
  assert.deepEqual(settled, ['a', 'b', 'c']);
  await batcher.drained();
});

test('when a shared write fails, each request is retried alone so only the refused one fails', async () => {
  const written: string[] = [];
  const batcher = new GroupCommitBatcher(
    async (payload) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (payloadBytes(payload).toString().includes('bad')) throw new Error('refused by the store');
      written.push(payloadBytes(payload).toString());
    },
    { maxBatchLines: 100 },
  );
  const first = batcher.submit(Buffer.from('first\n'), 1);
  await tick();
  const results = ['good-1', 'bad', 'good-2'].map((name) =>
    batcher.submit(Buffer.from(`${name}\n`), 1).then(
      () => `${name} ok`,
      () => `${name} failed`,
    ),
  );
  await first;
  assert.deepEqual(await Promise.all(results), ['good-1 ok', 'bad failed', 'good-2 ok']);
  assert.deepEqual(written, ['first\n', 'good-1\n', 'good-2\n'], 'nothing refused is written, nothing twice');
  await batcher.drained();
  assert.equal(batcher.pendingLines, 0);
});

test('maxBatchLines bounds one write', async () => {
  const { writes, write } = controllableWrite();
  const batcher = new GroupCommitBatcher(write, { maxBatchLines: 2 });
  const done = ['a', 'b', 'c'].map((name) => batcher.submit(Buffer.from(`${name}\n`), 1));
  await tick();
  assert.equal(writes[0].payload, 'a\nb\n');
  writes[0].finish();
  await tick();
  await tick();
  assert.equal(writes[1].payload, 'c\n');
  writes[1].finish();
  await Promise.all(done);
});
