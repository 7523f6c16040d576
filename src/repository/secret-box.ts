import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ConfigKysely } from './open.js';

/** The key file a first start writes in the data directory when LOGSTEAD_SECRET_KEY is not set. */
export const SECRET_KEY_FILE = 'secret.key';

/** Stored secrets start with this, so a value that is not one is told apart (and a future format can be). */
const FORMAT = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A start refused because the secret key is missing, malformed or not the one the secrets were sealed with. */
export class SecretKeyError extends Error {}

/**
 * Encrypts the secrets Logstead must give back to another service (an archive's secret access
 * key) with AES-256-GCM: each value gets its own random nonce, and the tag makes a value sealed
 * under another key, or altered, fail to open rather than decrypt to garbage. `purpose` binds a
 * value to its use (as associated data), so one sealed secret cannot be moved into another field.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new SecretKeyError('the secret key must be 32 bytes');
  }

  seal(plain: string, purpose: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(purpose));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${FORMAT}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  open(sealed: string, purpose: string): string {
    const [format, data] = sealed.split(':');
    if (format !== FORMAT || !data) throw new SecretKeyError('not a sealed secret');
    const bytes = Buffer.from(data, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(purpose));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretKeyError('a stored secret does not open with this secret key (LOGSTEAD_SECRET_KEY changed?)');
    }
  }

  /** A value that identifies the key without revealing it, stored to notice a start with another key. */
  fingerprint(): string {
    return createHmac('sha256', this.key).update('logstead secret key check').digest('hex');
  }
}

/**
 * The key from LOGSTEAD_SECRET_KEY, else the data directory's key file, made (mode 0600) on the
 * first start. A malformed file is a start error: a key silently replaced would lose every secret.
 */
export function loadSecretKey(settings: { secretKey: Buffer | undefined; dataDir: string }): Buffer {
  if (settings.secretKey) return settings.secretKey;
  const file = path.join(settings.dataDir, SECRET_KEY_FILE);
  if (!fs.existsSync(file)) {
    try {
      fs.writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another process made it first: read theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  const text = fs.readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-fA-F]{64}$/.test(text)) {
    throw new SecretKeyError(`${file} must hold 64 hexadecimal characters (the secret key a first start made); restore it, or set LOGSTEAD_SECRET_KEY`);
  }
  return Buffer.from(text, 'hex');
}

const FINGERPRINT_NAME = 'secret_key_fingerprint';

/**
 * Opens the secret box, checking the key against the fingerprint the configuration database
 * keeps: the first node to start records its key's, and a node with another key (each node of a
 * cluster made its own file, or LOGSTEAD_SECRET_KEY changed) is refused with a clear start error
 * instead of failing to open secrets later. While nothing is sealed, a new key just takes over.
 */
export async function openSecretBox(db: ConfigKysely, settings: { secretKey: Buffer | undefined; dataDir: string; databaseUrl?: string }): Promise<SecretBox> {
  const box = new SecretBox(loadSecretKey(settings));
  const fingerprint = box.fingerprint();
  await db.insertInto('secrets').values({ name: FINGERPRINT_NAME, value: fingerprint }).onConflict((conflict) => conflict.column('name').doNothing()).execute();
  const row = await db.selectFrom('secrets').select('value').where('name', '=', FINGERPRINT_NAME).executeTakeFirstOrThrow();
  if (row.value === fingerprint) return box;
  // Nothing sealed yet (e.g. a configuration copied to a cluster before any secret was stored): the new key simply takes over.
  if (!(await hasSealedSecrets(db))) {
    await db.updateTable('secrets').set({ value: fingerprint }).where('name', '=', FINGERPRINT_NAME).execute();
    return box;
  }
  const where = settings.secretKey ? 'LOGSTEAD_SECRET_KEY' : `the key file ${path.join(settings.dataDir, SECRET_KEY_FILE)}`;
  const hint = settings.databaseUrl ? ' Every node sharing a configuration database must have the same LOGSTEAD_SECRET_KEY.' : '';
  throw new SecretKeyError(`The secret key (${where}) is not the one this configuration's secrets were encrypted with.${hint}`);
}

/** Whether the configuration holds any secret sealed with the key (archive_configs.secret_sealed). */
async function hasSealedSecrets(db: ConfigKysely): Promise<boolean> {
  return (await db.selectFrom('archive_configs').select('account').limit(1).execute()).length > 0;
}
