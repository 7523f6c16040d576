import nodemailer from 'nodemailer';
import type { SendResult } from './http-send.js';

export interface Mail {
  to: string[];
  subject: string;
  text: string;
  html: string;
  attachments?: Array<{ filename: string; content: string; encoding: 'base64' }>;
}

/** E-mail over SMTP with nodemailer, to LOGSTEAD_SMTP_URL; without it, e-mail cannot be sent. */
export function createMailer(smtpUrl: string | undefined, from: string): (mail: Mail) => Promise<SendResult> {
  const transport = smtpUrl ? nodemailer.createTransport(smtpUrl) : null;
  return async (mail) => {
    if (!transport) return { ok: false, retry: false, detail: 'LOGSTEAD_SMTP_URL is not set, so e-mail cannot be sent' };
    try {
      const info = await transport.sendMail({ from, ...mail, to: mail.to.join(', ') });
      return { ok: true, retry: false, detail: `accepted by SMTP: ${info.response}`, status: smtpCode(info.response) };
    } catch (error) {
      const code = (error as { responseCode?: number }).responseCode;
      // 5xx is the server's final word (a rejected address); anything else may pass later.
      return { ok: false, retry: !(code !== undefined && code >= 500 && code < 600), detail: (error as Error).message, ...(code === undefined ? {} : { status: code }) };
    }
  };
}

/** The reply code an SMTP answer starts with ("250 2.0.0 Ok: queued"). */
function smtpCode(response: string | undefined): number | undefined {
  const match = /^(\d{3})\b/.exec(response ?? '');
  return match ? Number(match[1]) : undefined;
}
