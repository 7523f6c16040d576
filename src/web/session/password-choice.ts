import { ApiError, type PasswordLink } from '../api-client/client.js';

/** The server's least password length (src/people/passwords.ts), checked here first to save a round trip. */
export const MIN_PASSWORD_LENGTH = 10;

/** What is wrong with a new password typed twice, or null when it may be sent. */
export function passwordProblem(password: string, repeated: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (password !== repeated) return 'The two passwords differ; type the same one twice.';
  return null;
}

/** The password page's heading and a line saying what choosing a password here does. */
export function linkPurpose(link: PasswordLink): { title: string; text: string } {
  const organisation = link.organisation ? `“${link.organisation}”` : 'this organisation';
  switch (link.purpose) {
    case 'invite':
      return { title: `You are invited to ${organisation}`, text: `Choose a password for ${link.email ?? 'your account'} to join and sign in.` };
    case 'reset':
      return { title: 'Choose a new password', text: `For ${link.email ?? 'your account'} in ${organisation}. Your other sessions end once it is set.` };
    case 'owner':
      return { title: `Become the owner of ${organisation}`, text: 'Give your e-mail address and choose a password: you will sign in with them from now on.' };
  }
}

/** Why a link or a password was refused, in words: the server's own (a used or expired link says which), or each field's problem. */
export function linkProblem(error: unknown): string {
  if (!(error instanceof ApiError)) return `The server could not be reached (${(error as Error).message}).`;
  if (error.status === 404) return 'This link is not valid. Check that it was copied whole, or ask for a new one.';
  if (error.status === 400 && error.body.details?.length) return error.body.details.map((detail) => detail.message.replace(/^"(\w+)"/, (_, key: string) => FIELD_NAMES[key] ?? key)).join(' ');
  return error.body.error;
}

const FIELD_NAMES: Record<string, string> = { password: 'The password', email: 'The e-mail address', token: 'The link' };
