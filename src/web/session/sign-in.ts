import { ApiError } from '../api-client/client.js';

/** Why a sign-in failed, in words: a refused key is named as such, anything else says what happened. */
export function signInProblem(error: unknown): string {
  return error instanceof ApiError && error.status === 401 ? 'That is not a service key of an active organisation.' : String((error as Error).message);
}
