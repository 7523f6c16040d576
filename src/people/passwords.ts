import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Passwords, hashed with scrypt (memory-hard, in Node's own crypto, so no native add-on to build):
 * N = 2^15, r = 8, p = 1 — 32 MiB and some tens of milliseconds a guess — with a 16-byte random
 * salt and a 32-byte hash. The parameters are stored with each hash, so raising them later keeps
 * old hashes verifiable.
 */
const PARAMS = { N: 2 ** 15, r: 8, p: 1 };
const MAX_MEMORY = 128 * PARAMS.N * PARAMS.r * 2;
const HASH_BYTES = 32;

/** The shortest password accepted; longer is up to the person. */
export const MIN_PASSWORD_LENGTH = 10;
/** scrypt reads the whole password: a cap keeps a huge one from being an expensive request. */
export const MAX_PASSWORD_LENGTH = 256;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, HASH_BYTES, { ...params, maxmem: Math.max(MAX_MEMORY, 128 * params.N * params.r * 2) }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/** `scrypt$N$r$p$salt$hash`, salt and hash in base64url. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  // Without a stored hash the work is still done, so the answer takes as long as a wrong password.
  const parts = (stored ?? '').split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') {
    await derive(password, randomBytes(16), PARAMS);
    return false;
  }
  const [, N, r, p, salt, hash] = parts;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(N), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
