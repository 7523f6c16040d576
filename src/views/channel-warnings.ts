import dns from 'node:dns/promises';
import { internalAddressRefusal, internalLiteral, isInternalAddress } from '../lib/private-address.js';
import type { ViewWarning } from '../wire/types.js';
import type { Channel } from './channels.js';

export interface DeliveryAbilities {
  /** LOGSTEAD_SMTP_URL is set. */
  canEmail: boolean;
  /** LOGSTEAD_ALLOW_PRIVATE_WEBHOOKS: deliveries may reach internal addresses. */
  allowPrivateWebhooks: boolean;
}

/** A saved view does not wait long on a slow resolver: a name that does not answer in time is not judged. */
const LOOKUP_TIMEOUT_MS = 2000;

async function resolvedInternal(hostname: string): Promise<string | undefined> {
  const lookup = dns.lookup(hostname, { all: true }).then(
    (addresses) => addresses.find((entry) => isInternalAddress(entry.address))?.address,
    () => undefined,
  );
  const timeout = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), LOOKUP_TIMEOUT_MS).unref());
  return Promise.race([lookup, timeout]);
}

/**
 * What a view's channels will not do when they fire, told at save time with the same rules the
 * deliveries apply: e-mail without SMTP cannot be sent, and a webhook whose address is (or
 * resolves to) an internal one is refused unless the operator allows it. The view is saved anyway.
 */
export async function channelWarnings(channels: Array<Omit<Channel, 'alertid'>>, abilities: DeliveryAbilities): Promise<ViewWarning[]> {
  const warnings: ViewWarning[] = [];
  await Promise.all(
    channels.map(async (channel, index) => {
      if (channel.integration === 'email' && !abilities.canEmail) {
        warnings.push({ channel: index, code: 'smtp-not-configured', message: 'This server has no SMTP server (LOGSTEAD_SMTP_URL is not set), so this e-mail channel cannot send.' });
      }
      // Slack and Teams post to their incoming-webhook address under the same rule as webhooks.
      if (!['webhook', 'slack', 'teams'].includes(channel.integration) || !channel.url || abilities.allowPrivateWebhooks) return;
      let url: URL;
      try {
        url = new URL(channel.url);
      } catch {
        return;
      }
      const literal = internalLiteral(url);
      const host = url.hostname.replace(/^\[|\]$/g, '');
      const internal = literal ?? (literal === undefined && !/^[\d.:]+$/.test(host) ? await resolvedInternal(host) : undefined);
      if (internal) {
        warnings.push({ channel: index, code: 'internal-address', message: `Deliveries to this webhook will be refused: ${internalAddressRefusal(literal ? internal : host, internal)}.` });
      }
    }),
  );
  return warnings.sort((a, b) => a.channel - b.channel);
}
