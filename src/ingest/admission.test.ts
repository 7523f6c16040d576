import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apiErrorForDomain } from '../http/domain-errors.js';
import { IngestAdmission } from './admission.js';
import { OverloadedError } from '../lib/ingest-errors.js';

const settled = async (promise: Promise<unknown>) => {
  let done = false;
  void promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

test('requests wait, in order, while the store queue is full, and go in as it drains', async () => {
  let queued = 100;
  const gate = new IngestAdmission(() => queued, { maxQueuedLines: 100, maxReadingBytes: 1000, waitMs: 10_000 });
  const first = gate.admit(10);
  const second = gate.admit(10);
  assert.equal(await settled(first), false, 'a full queue holds new requests back');
  assert.equal(gate.waitingRequests, 2);
  queued = 50;
  gate.progress();
  const [a, b] = await Promise.all([first, second]);
  assert.equal(gate.waitingRequests, 0);
  a.release();
  b.release();
});

test('bodies being read are bounded in bytes, but one request always fits', async () => {
  const gate = new IngestAdmission(() => 0, { maxQueuedLines: 100, maxReadingBytes: 100, waitMs: 10_000 });
  const huge = await gate.admit(500); // larger than the budget, alone: let in
  const next = gate.admit(10);
  assert.equal(await settled(next), false, 'nothing more while the budget is spent');
  huge.release();
  (await next).release();
  const a = await gate.admit(60);
  const b = gate.admit(60);
  assert.equal(await settled(b), false, '60 + 60 is over 100');
  a.release();
  a.release(); // releasing twice frees the bytes once
  const c = gate.admit(60);
  (await b).release();
  (await c).release();
});

test('a request that waits too long is shed with 503 and Retry-After, and leaves the line', async () => {
  const gate = new IngestAdmission(() => 1000, { maxQueuedLines: 100, maxReadingBytes: 1000, waitMs: 20 });
  const refused = await gate.admit(10).then(
    () => null,
    (error) => error,
  );
  assert.ok(refused instanceof OverloadedError);
  const answer = apiErrorForDomain(refused)!;
  assert.equal(answer.statusCode, 503);
  assert.ok(Number(answer.headers['retry-after']) > 0);
  assert.equal(gate.waitingRequests, 0);
});
