import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { startLogstead } from '../app.js';
import { loadSettings, SettingsError } from '../settings.js';
import { dropTestPostgres, testConfigDialect, testConfigEnv } from '../testing/config-database.js';
import { testEngineEnv } from '../testing/log-engine.js';
import { SECRET_KEY_FILE, SecretBox, SecretKeyError, loadSecretKey } from './secret-box.js';

test('a sealed secret opens with its key and purpose only, and each sealing differs', () => {
  const box = new SecretBox(Buffer.alloc(32, 7));
  const sealed = box.seal('s3cr3t', 'archive secretkey');
  assert.notEqual(sealed, box.seal('s3cr3t', 'archive secretkey'), 'a fresh nonce each time');
  assert.ok(!sealed.includes('s3cr3t'));
  assert.equal(box.open(sealed, 'archive secretkey'), 's3cr3t');
  assert.throws(() => box.open(sealed, 'another purpose'), SecretKeyError);
  assert.throws(() => new SecretBox(Buffer.alloc(32, 8)).open(sealed, 'archive secretkey'), SecretKeyError);
  const tampered = `${sealed.slice(0, -4)}AAAA`;
  assert.throws(() => box.open(tampered, 'archive secretkey'), SecretKeyError);
});

test('LOGSTEAD_SECRET_KEY must be 64 hexadecimal characters, and is never repeated in the error', () => {
  assert.throws(() => loadSettings({ LOGSTEAD_SECRET_KEY: 'tooshortsecret' }), (error: Error) => error instanceof SettingsError && /64 hexadecimal/.test(error.message) && !error.message.includes('tooshortsecret'));
  assert.deepEqual(loadSettings({ LOGSTEAD_SECRET_KEY: 'ab'.repeat(32) }).secretKey, Buffer.alloc(32, 0xab));
});

test('without the setting, the first start makes a key file (mode 0600) that later starts reuse; a malformed one stops the start', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-key-'));
  try {
    const first = loadSecretKey({ secretKey: undefined, dataDir });
    const file = path.join(dataDir, SECRET_KEY_FILE);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(loadSecretKey({ secretKey: undefined, dataDir }), first);
    fs.writeFileSync(file, 'garbage');
    assert.throws(() => loadSecretKey({ secretKey: undefined, dataDir }), /must hold 64 hexadecimal characters/);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a server started with another key than its sealed secrets were sealed with refuses to start, saying so', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logstead-key-'));
  try {
    const env = { LOGSTEAD_PORT: '0', LOGSTEAD_DATA_DIR: dataDir, LOGSTEAD_LOG_LEVEL: 'warn', ...(await testEngineEnv(dataDir)), ...(await testConfigEnv(dataDir)) };
    const running = await startLogstead(loadSettings({ ...env, LOGSTEAD_SECRET_KEY: '11'.repeat(32) }));
    // Before anything is sealed another key may take over; once a secret is sealed it may not.
    await running.close();
    const taking = await startLogstead(loadSettings({ ...env, LOGSTEAD_SECRET_KEY: '33'.repeat(32) }));
    await taking.close();
    const sealing = await startLogstead(loadSettings({ ...env, LOGSTEAD_SECRET_KEY: '11'.repeat(32) }));
    const sealed = new SecretBox(Buffer.alloc(32, 0x11)).seal('s3cr3t', 'archive secretkey');
    await sealing.db
      .insertInto('archive_configs')
      .values({ account: 'x', integration: 's3', bucket: 'b', endpoint: null, region: null, access_key: 'k', secret_sealed: sealed, force_path_style: 0, configured_at: 0, updated_at: 0, passed_to: 0, eligible_before: 0 })
      .execute();
    await sealing.close();
    await assert.rejects(startLogstead(loadSettings({ ...env, LOGSTEAD_SECRET_KEY: '22'.repeat(32) })), /The secret key \(LOGSTEAD_SECRET_KEY\) is not the one/);
    const again = await startLogstead(loadSettings({ ...env, LOGSTEAD_SECRET_KEY: '11'.repeat(32) }));
    await again.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (testConfigDialect === 'postgres') await dropTestPostgres(dataDir);
  }
});
