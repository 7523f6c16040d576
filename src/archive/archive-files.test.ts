import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { openTestConfig } from '../testing/config-database.js';
import { ARCHIVE_CLAIM_MS } from './archiver.js';
import { ArchiveFiles } from './archive-files.js';
import { HOUR_MS } from './object-names.js';

// The archive record on the real configuration database (SQLite, or PostgreSQL with
// LOGSTEAD_TEST_DATABASE=postgres): passes recorded once, files claimed by one node at a time.

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-archive-files-'));
let config: Awaited<ReturnType<typeof openTestConfig>>;
before(async () => {
  config = await openTestConfig(dir);
  await config.database.db
    .insertInto('archive_configs')
    .values({ account: 'acct', integration: 's3', bucket: 'b', endpoint: null, region: null, access_key: 'k', secret_sealed: 'v1:x', force_path_style: 0, configured_at: 1000, updated_at: 1000, passed_to: 1000, eligible_before: 0 })
    .execute();
});
after(async () => {
  await config.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a pass is recorded once: a second node planning from the same position records nothing', async () => {
  const nodeA = new ArchiveFiles(config.database.db, 1);
  const nodeB = new ArchiveFiles(config.database.db, 2);
  const from = (await nodeA.position('acct'))!;
  const files = [{ hour: 5 * HOUR_MS, arrivalFrom: 1000, arrivalTo: 9000, lines: 3 }];
  assert.equal(await nodeA.recordPass('acct', from, { passedTo: 9000, eligibleBefore: 6 * HOUR_MS }, files, 10_000), true);
  assert.equal(await nodeB.recordPass('acct', from, { passedTo: 9500, eligibleBefore: 6 * HOUR_MS }, files, 10_000), false);
  const next = (await nodeB.position('acct'))!;
  assert.deepEqual(next, { configuredAt: 1000, passedTo: 9000, eligibleBefore: 6 * HOUR_MS });
  // Late lines for the same hour: its next file.
  assert.equal(await nodeB.recordPass('acct', next, { passedTo: 20_000, eligibleBefore: 6 * HOUR_MS }, [{ hour: 5 * HOUR_MS, arrivalFrom: 9000, arrivalTo: 20_000, lines: 1 }], 21_000), true);
  const status = await nodeA.status('acct', 10);
  assert.deepEqual(status.map((file) => file.object), ['year=1970/month=01/day=01/acct.1970-01-01.0500.json.gz', 'year=1970/month=01/day=01/acct.1970-01-01.0500.1.json.gz']);
});

test('one node claims a file; a dead node\'s claim passes to another once it runs out, and the late writer cannot record it', async () => {
  const nodeA = new ArchiveFiles(config.database.db, 1);
  const nodeB = new ArchiveFiles(config.database.db, 2);
  const now = 100_000;
  const claimedByA = await nodeA.claimDue(now, 10, ARCHIVE_CLAIM_MS);
  assert.equal(claimedByA.length, 2);
  assert.deepEqual(await nodeB.claimDue(now + 1000, 10, ARCHIVE_CLAIM_MS), [], 'held by A');
  assert.deepEqual(await nodeB.claimDue(now + ARCHIVE_CLAIM_MS - 1, 10, ARCHIVE_CLAIM_MS), [], 'still held at 29.999 s');
  const claimedByB = await nodeB.claimDue(now + ARCHIVE_CLAIM_MS, 10, ARCHIVE_CLAIM_MS);
  assert.equal(claimedByB.length, 2, 'A stopped renewing: B takes both within 30 s');
  assert.equal(await nodeA.written(claimedByA[0], 3, 100, now + ARCHIVE_CLAIM_MS + 1), false, "A's claim is gone");
  assert.equal(await nodeB.written(claimedByB[0], 3, 100, now + ARCHIVE_CLAIM_MS + 1), true);
  await nodeB.failed(claimedByB[1], 'InternalError (HTTP 500)', now + ARCHIVE_CLAIM_MS + 5000);
  assert.deepEqual(await nodeA.claimDue(now + ARCHIVE_CLAIM_MS + 4000, 10, ARCHIVE_CLAIM_MS), [], 'waits for its retry time');
  const retried = await nodeA.claimDue(now + ARCHIVE_CLAIM_MS + 5000, 10, ARCHIVE_CLAIM_MS);
  assert.equal(retried.length, 1);
  assert.equal(retried[0].attempts, 1);
  const pending = (await nodeA.status('acct', 10)).find((file) => file.status === 'pending')!;
  assert.equal(pending.lastError, 'InternalError (HTTP 500)');
  assert.deepEqual(await nodeA.unarchivedFrom(), new Map([['acct', 5 * HOUR_MS]]), 'retention keeps the hour with a file not yet written');
});
