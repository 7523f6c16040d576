import type { Mail } from '../notify/mailer.js';
import type { SendResult } from '../notify/http-send.js';
import type { OneTimeLinks } from './one-time-links.js';

/** Where a one-time link opens: the page that takes the new password (GET /password). */
export const passwordLink = (publicUrl: string, token: string): string => `${publicUrl}/password?token=${encodeURIComponent(token)}`;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The invitation or reset e-mail: one link, to the page that takes the new password. */
export function linkMail(kind: 'invite' | 'reset', to: string, organisation: string, link: string, hours: number): Mail {
  const intro =
    kind === 'invite'
      ? `You have been invited to the Logstead organisation "${organisation}". Choose a password to sign in:`
      : `Someone (we hope you) asked to reset your Logstead password for "${organisation}". Choose a new password:`;
  const outro = `The link works once, for ${hours} hours.${kind === 'reset' ? ' If you did not ask for this, ignore this e-mail; your password stays as it is.' : ''}`;
  return {
    to: [to],
    subject: kind === 'invite' ? `You are invited to Logstead (${organisation})` : 'Reset your Logstead password',
    text: `${intro}\n\n${link}\n\n${outro}\n`,
    html: `<p>${escapeHtml(intro)}</p><p><a href="${escapeHtml(link)}">Choose a password</a></p><p>${escapeHtml(outro)}</p>`,
  };
}

export interface LinkSender {
  links: OneTimeLinks;
  mail: (mail: Mail) => Promise<SendResult>;
  canEmail: boolean;
  publicUrl: () => string;
  hours: number;
}

/** What became of an invitation or reset e-mail, as the members API reports it. */
export interface LinkDelivery {
  sent: boolean;
  detail: string;
}

/**
 * Issues a member's link and e-mails it. Sent at once rather than through the alert outbox, whose
 * delivery log every reader of the organisation may see: the link is the member's credential.
 * Without SMTP the link can still be had from `logstead member reset-link`.
 */
export async function sendLink(sender: LinkSender, kind: 'invite' | 'reset', member: { id: string; account: string; email: string }, organisation: string): Promise<LinkDelivery> {
  if (!sender.canEmail) return { sent: false, detail: 'LOGSTEAD_SMTP_URL is not set; run `logstead member reset-link` for the link' };
  const token = await sender.links.issue(member.account, kind, member.id, sender.hours * 3_600_000);
  const result = await sender.mail(linkMail(kind, member.email, organisation, passwordLink(sender.publicUrl(), token), sender.hours));
  return { sent: result.ok, detail: result.detail };
}
