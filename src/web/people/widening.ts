import { ApiError } from '../api-client/client.js';

/**
 * A change that would leave members in no scoped group lets them see every line: the server
 * refuses it (409, naming them) unless it is asked again with ?widen=true. The viewer asks the
 * person first, naming who would see what.
 */

/** The members a refused change would let see every line, when that is why the server refused it. */
export function wideningOf(error: unknown): string[] | null {
  if (!(error instanceof ApiError) || error.status !== 409 || !Array.isArray(error.body.members)) return null;
  return error.body.members;
}

/** The confirmation's words: which change, who would see every line, and why. */
export function wideningQuestion(change: string, members: string[]): string {
  const who = members.length === 1 ? members[0] : `${members.length} members (${members.join(', ')})`;
  return `${change} would let ${who} see every line of the organisation, with no limit: they would be in no scoped group. Do it anyway?`;
}

/**
 * Sends a change; when the server refuses it as widening, asks (naming the members), and sends it
 * again with ?widen=true if the person agrees. The server's answer, or undefined when they did not.
 */
export async function sendWidening<T>(change: string, send: (widen: boolean) => Promise<T>, confirm: (question: string) => boolean = (question) => window.confirm(question)): Promise<T | undefined> {
  try {
    return await send(false);
  } catch (error) {
    const members = wideningOf(error);
    if (!members) throw error;
    if (!confirm(wideningQuestion(change, members))) return undefined;
    return send(true);
  }
}
