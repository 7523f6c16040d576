import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** The window of the per-address count: long enough that guessing from one address gets nowhere. */
const ADDRESS_WINDOW_MS = 15 * 60_000;
const OVERALL_WINDOW_MS = 60_000;

export interface SignInLimitSettings {
  /** Wrong keys one client address may try per 15 minutes. */
  failuresPerAddress: number;
  /** Wrong keys all addresses together may try per minute. */
  failuresPerMinute: number;
}

export interface SignInLimits {
  /** Seconds until sign-in is allowed again for this request's address, or undefined when it is allowed now. */
  retryAfter(request: FastifyRequest): Promise<number | undefined>;
  /** Counts one wrong key against the request's address and against the overall budget. */
  failed(request: FastifyRequest): Promise<void>;
}

/**
 * Limits on failed viewer sign-ins. Only failures are counted, so a user who types the right key
 * is never slowed down by their own successful sign-ins. A key carries nothing that names its
 * organisation, so a wrong key cannot be charged to one; the limits are per client address, plus
 * one budget for all addresses together against guessing spread over many addresses.
 * When a limit is reached every sign-in from there waits, right keys included: answering a right
 * key during the wait would tell a guesser which of its guesses was right.
 */
export async function signInLimits(app: FastifyInstance, settings: SignInLimitSettings): Promise<SignInLimits> {
  // Registered without global limits: only the checks created here use it.
  await app.register(rateLimit, { global: false });
  const byAddress = app.createRateLimit({ max: settings.failuresPerAddress, timeWindow: ADDRESS_WINDOW_MS });
  const overall = app.createRateLimit({ max: settings.failuresPerMinute, timeWindow: OVERALL_WINDOW_MS, keyGenerator: () => 'all addresses' });
  return {
    async retryAfter(request) {
      const waits: number[] = [];
      for (const limit of [byAddress, overall]) {
        // A look that does not count: the attempt is only counted once it has failed.
        const status = await limit(request, { increment: false });
        if (!status.isAllowed && status.remaining === 0) waits.push(Math.max(1, status.ttlInSeconds));
      }
      return waits.length ? Math.max(...waits) : undefined;
    },
    async failed(request) {
      await byAddress(request);
      await overall(request);
    },
  };
}
