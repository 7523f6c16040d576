import { ApiError } from '../api-client/client.js';

/** What to show for a failed call: the server's own message from its catalogue of errors, else the failure's. */
export const errorText = (error: unknown): string => (error instanceof ApiError ? error.body.error : error instanceof Error ? error.message : String(error));
