import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { dropTestPostgres, testPostgresUrl } from '../testing/config-database.js';
import { request, startTestServer } from '../testing/harness.js';

// Its own file: one process holds one embedded engine, and archive.test.ts keeps its server open.

test('on a shared configuration database, archiving is refused until every node has LOGSTEAD_SECRET_KEY', async () => {
  const key = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-archive-shared-'));
  const shared = await startTestServer({ LOGSTEAD_DATABASE_URL: await testPostgresUrl(key), LOGSTEAD_SECRET_KEY: '' });
  try {
    const refused = await request(`${shared.url}/v1/config/archiving`, {
      method: 'POST',
      headers: { servicekey: shared.org.serviceKey, 'content-type': 'application/json' },
      body: JSON.stringify({ integration: 's3', bucket: 'archive-test', endpoint: 'http://127.0.0.1:9', accesskey: 'k', secretkey: 's', forcepathstyle: true }),
    });
    assert.equal(refused.status, 400);
    assert.match(refused.json.error, /same LOGSTEAD_SECRET_KEY on every node/);
  } finally {
    await shared.close();
    await dropTestPostgres(key);
    fs.rmSync(key, { recursive: true, force: true });
  }
});
