import type { DeliveryAbilities } from '../views/channel-warnings.js';
import { httpSend, type SendResult } from './http-send.js';
import type { Mail } from './mailer.js';
import type { DeliveryMessage } from './messages.js';
import { explainedResult } from './slack.js';

/** Routes a stored message to its transport. */
export function createSender(options: { mail: (mail: Mail) => Promise<SendResult>; allowPrivateWebhooks: boolean }) {
  return (message: DeliveryMessage): Promise<SendResult> => {
    switch (message.integration) {
      case 'email':
        return options.mail(message);
      case 'webhook':
        return httpSend(message, options.allowPrivateWebhooks);
      case 'incidentpaging':
        // Held to the same rule as webhooks: an internal paging endpoint needs the same explicit allowance.
        return httpSend({ url: message.url, method: 'POST', headers: { 'content-type': 'application/json' }, body: message.body }, options.allowPrivateWebhooks);
      case 'slack':
      case 'teams':
      case 'opsgenie':
      case 'victorops':
        // Held to the same rule as webhooks; each of these says in its answer body why it refused.
        return httpSend(message, options.allowPrivateWebhooks).then(explainedResult);
    }
  };
}

/** What deliveries can do here: saved views are warned about channels that cannot deliver. */
export function deliveryAbilities(settings: { smtpUrl: string | undefined; allowPrivateWebhooks: boolean }): DeliveryAbilities {
  return { canEmail: settings.smtpUrl !== undefined, allowPrivateWebhooks: settings.allowPrivateWebhooks };
}
