import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { openTestConfig } from '../testing/config-database.js';
import { Accounts } from '../accounts/accounts.js';
import { Deliveries } from './deliveries.js';

const outcome = (at: number) => ({ at, outcome: 'delivered', detail: 'HTTP 200', statusCode: 200, status: 'delivered' as const, attempts: 1, nextAttemptAt: at });

test("a claim that ran out belongs to the node that took the delivery over: the first node's late outcome is not recorded", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-deliveries-'));
  const config = await openTestConfig(dir);
  try {
    const { db } = config.database;
    const { account } = await new Accounts(db).createAccount('claims');
    const nodeA = new Deliveries(db, 1);
    const nodeB = new Deliveries(db, 2);
    const id = await nodeA.enqueue({ account, fireId: null, integration: 'webhook', target: 'http://x', message: '{}' }, 1000);

    const [claimedByA] = await nodeA.claimDue(1000, 4, 30_000);
    assert.equal(claimedByA.id, id);
    assert.deepEqual(await nodeB.claimDue(2000, 4, 30_000), [], 'held while the claim lasts');
    await nodeA.extendClaims([claimedByA.token], 40_000);
    assert.deepEqual(await nodeB.claimDue(35_000, 4, 30_000), [], 'renewed by its holder');

    const [claimedByB] = await nodeB.claimDue(41_000, 4, 30_000);
    assert.equal(claimedByB.id, id, 'taken over once the claim ran out');
    assert.equal(await nodeA.recordAttempt(id, claimedByA.token, outcome(42_000)), false, "node A's outcome comes too late");
    assert.equal(await nodeB.recordAttempt(id, claimedByB.token, outcome(43_000)), true);
    const [entry] = await nodeB.log(account, 10);
    assert.equal(entry.status, 'delivered');
    assert.deepEqual(entry.attempts.map((attempt) => attempt.at), [43_000], 'one attempt recorded: the one of the claim that held');
  } finally {
    await config.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
