import { ApiError } from '../api-client/client.js';

export type SignInMethod = 'password' | 'key';

/**
 * Why a sign-in failed, in words: refused credentials are named for the way used, a limit says
 * how long to wait, and anything else says what happened.
 */
export function signInProblem(error: unknown, method: SignInMethod = 'key'): string {
  if (!(error instanceof ApiError)) return `The server could not be reached (${(error as Error).message}).`;
  if (error.status === 401) return method === 'password' ? 'Wrong e-mail or password.' : 'That is not a service key of an active organisation.';
  if (error.status === 429) {
    const seconds = error.body.retryAfter;
    return seconds === undefined ? error.body.error : `Too many failed sign-ins from here. Try again in ${waitText(seconds)}.`;
  }
  return error.body.error;
}

/** 75 seconds as "2 minutes", 20 as "20 seconds": a wait, rounded up, in the unit a person reads. */
export function waitText(seconds: number): string {
  if (seconds <= 90) return `${Math.max(1, Math.ceil(seconds))} second${Math.ceil(seconds) === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minutes`;
}
