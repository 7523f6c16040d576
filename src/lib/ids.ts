import { createHash, randomBytes } from 'node:crypto';

/** Account, key and (later) view identifiers: 10 lower-case hex characters, as Mezmo issues them. */
export const newId = (): string => randomBytes(5).toString('hex');

/** A secret API key: 32 lower-case hex characters (128 bits), the shape of Mezmo's keys. */
export const newSecretKey = (): string => randomBytes(16).toString('hex');

/** The shape of a key newSecretKey makes. */
export { KEY_SHAPE } from './key-shape.js';

/**
 * Keys are random 128-bit values, so a fast unsalted hash is enough to keep them out of the
 * database in clear; a slow password hash would only add latency to every request.
 */
export const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex');
