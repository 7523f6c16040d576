import { randomBytes } from 'node:crypto';
import { calculatePKCECodeChallenge, randomNonce, randomPKCECodeVerifier, randomState } from 'openid-client';
import { hashKey } from '../../lib/ids.js';
import type { ConfigKysely } from '../../repository/open.js';

/** How long a person may take at the provider between /api/sso/start and the callback. */
export const ATTEMPT_MS = 10 * 60_000;

/** What the callback must check of the provider's answer, and the browser's id of the attempt. */
export interface SignOnAttempt {
  /** The random id the browser holds in its attempt cookie; only its hash is stored. */
  id: string;
  state: string;
  nonce: string;
  codeVerifier: string;
  codeChallenge: string;
}

/**
 * OpenID sign-ins under way, kept in the configuration database rather than in this node's
 * memory: nodes share the database, and the provider may send the person back to another node.
 * An attempt is spent (deleted) by the first callback that presents it, whatever that callback's
 * outcome, so a code, state or nonce can never be tried twice.
 */
export class SignOnAttempts {
  constructor(private readonly db: ConfigKysely) {}

  async begin(now = Date.now()): Promise<SignOnAttempt> {
    const id = randomBytes(32).toString('base64url');
    const codeVerifier = randomPKCECodeVerifier();
    const attempt = { id, state: randomState(), nonce: randomNonce(), codeVerifier, codeChallenge: await calculatePKCECodeChallenge(codeVerifier) };
    // Abandoned attempts (the person closed the provider's page) are swept here, so the table stays small.
    await this.db.deleteFrom('sign_on_attempts').where('expires_at', '<', now).execute();
    await this.db
      .insertInto('sign_on_attempts')
      .values({ id_hash: hashKey(id), state: attempt.state, nonce: attempt.nonce, code_verifier: codeVerifier, expires_at: now + ATTEMPT_MS })
      .execute();
    return attempt;
  }

  /**
   * Deletes the attempt and returns what it held, or undefined when there is none or it has
   * expired. The delete decides: of two callbacks racing with one cookie, only one gets the attempt.
   */
  async spend(id: string, now = Date.now()): Promise<Omit<SignOnAttempt, 'id' | 'codeChallenge'> | undefined> {
    const row = await this.db.deleteFrom('sign_on_attempts').where('id_hash', '=', hashKey(id)).returningAll().executeTakeFirst();
    if (!row || Number(row.expires_at) < now) return undefined;
    return { state: row.state, nonce: row.nonce, codeVerifier: row.code_verifier };
  }
}
