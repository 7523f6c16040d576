import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { dropTestPostgres, testPostgresUrl } from '../testing/config-database.js';
import { eventually } from '../testing/harness.js';
import { PostgresBroadcast } from './postgres-broadcast.js';

/** Two nodes' broadcasts on the machine's real PostgreSQL server (LISTEN/NOTIFY). */
const key = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-broadcast-'));
let sender: PostgresBroadcast;
let receiver: PostgresBroadcast;
const errors: unknown[] = [];

before(async () => {
  const url = await testPostgresUrl(key);
  sender = await PostgresBroadcast.open(url, (error) => errors.push(error));
  receiver = await PostgresBroadcast.open(url, (error) => errors.push(error));
});
after(async () => {
  await sender.close();
  await receiver.close();
  await dropTestPostgres(key);
  fs.rmSync(key, { recursive: true, force: true });
});

test('a message longer than one NOTIFY arrives whole, a character split across parts included; a node does not hear itself', async () => {
  const heard: string[] = [];
  const own: string[] = [];
  receiver.subscribe('logstead_test_long', (message) => heard.push(message));
  sender.subscribe('logstead_test_long', (message) => own.push(message));
  await new Promise((resolve) => setTimeout(resolve, 200)); // the LISTEN takes effect
  // An emoji (two UTF-16 units) straddles the first part's end, and a NUL-free mix of scripts follows.
  const message = `${'a'.repeat(1799)}😀${'ü€𝄞 '.repeat(3000)}end`;
  assert.equal(await sender.publish('logstead_test_long', message), true);
  await eventually(() => (heard.length ? true : undefined), 5000, 'the message');
  assert.equal(heard[0], message);
  assert.deepEqual(own, []);
});

test("a handler's failure is reported, and later messages still arrive", async () => {
  const heard: string[] = [];
  receiver.subscribe('logstead_test_throwing', (message) => {
    if (message === 'bad') throw new Error('handler failed');
    heard.push(message);
  });
  await new Promise((resolve) => setTimeout(resolve, 200));
  await sender.publish('logstead_test_throwing', 'bad');
  await sender.publish('logstead_test_throwing', 'good');
  await eventually(() => (heard.length ? true : undefined), 5000, 'the message after the failure');
  assert.deepEqual(heard, ['good']);
  assert.ok(errors.some((error) => (error as Error).message === 'handler failed'));
});
