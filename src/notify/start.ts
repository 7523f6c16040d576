import type { FastifyBaseLogger } from 'fastify';
import type { AlertEvent } from './alert-event.js';
import { type ServiceAuth, setterMember } from '../http/service-auth.js';
import type { Subsystem } from '../lib/subsystem.js';
import type { ConfigKysely } from '../repository/open.js';
import type { Settings } from '../settings.js';
import type { Views } from '../views/views.js';
import { Deliveries } from './deliveries.js';
import { deliveryRoutes } from './delivery-routes.js';
import { createMailer } from './mailer.js';
import { type DeliveryMessage, alertMessage } from './messages.js';
import { Outbox } from './outbox.js';
import { createSender, deliveryAbilities } from './send.js';

export type NotifySettings = Pick<Settings, 'smtpUrl' | 'smtpFrom' | 'allowPrivateWebhooks' | 'pagingUrl' | 'opsgenieUrl' | 'victoropsUrl' | 'deliveryRetryBaseMs' | 'deliveryMaxAttempts'>;

export interface NotifyDeps {
  settings: NotifySettings;
  db: ConfigKysely;
  /** This node's slot, which marks its claims on deliveries. */
  nodeSlot: number;
  views: Views;
  auth: ServiceAuth;
  /** The viewer's public address, for the links in messages. */
  publicUrl: () => string;
  /** Hears the outcome of every delivery attempt (the metrics). */
  attempted: (integration: DeliveryMessage['integration'], outcome: 'delivered' | 'failed' | 'retry') => void;
  log: FastifyBaseLogger;
  now: () => number;
}

export interface NotifySubsystem extends Subsystem {
  /** The delivery queue: messages recorded with what caused them, then sent with retries in the background. */
  outbox: Outbox;
  /** Whether e-mail can be sent here (LOGSTEAD_SMTP_URL is set). */
  canEmail: boolean;
  /** Records an alert's messages, one per channel, in the transaction that records its fire. */
  enqueueAlert(event: AlertEvent, trx: ConfigKysely): Promise<void>;
}

/**
 * Notifications: e-mail over SMTP, webhooks and incident paging, queued in the configuration
 * database (deliveries.ts) so that any node delivers them, with retries and a delivery log.
 */
export function startNotify(deps: NotifyDeps): NotifySubsystem {
  const { settings } = deps;
  const send = createSender({ mail: createMailer(settings.smtpUrl, settings.smtpFrom), allowPrivateWebhooks: settings.allowPrivateWebhooks });
  const outbox = new Outbox(new Deliveries(deps.db, deps.nodeSlot), send, {
    retryBaseMs: settings.deliveryRetryBaseMs,
    maxAttempts: settings.deliveryMaxAttempts,
    attempted: deps.attempted,
    failed: (error) => deps.log.error({ err: error }, 'the delivery outbox could not reach the configuration database'),
    // A member's targets stop with them; a key of full rights is the organisation's, not a person's.
    setterStanding: (setBy) => (setterMember(setBy) === null ? Promise.resolve(true) : deps.auth.credentialIsLive(setBy)),
  });
  const messageSettings = () => ({ publicUrl: deps.publicUrl(), pagingUrl: settings.pagingUrl, opsgenieUrl: settings.opsgenieUrl, victoropsUrl: settings.victoropsUrl });
  outbox.start();
  return {
    outbox,
    canEmail: deliveryAbilities(settings).canEmail,
    async enqueueAlert(event, trx) {
      await outbox.enqueue(event.account, event.fireId, alertMessage(event, messageSettings()), trx, { setBy: event.channel.setBy, scopes: event.scopes, held: event.held });
    },
    routes: async (app) => {
      await app.register(deliveryRoutes, { auth: deps.auth, outbox, views: deps.views, send, messageSettings, now: deps.now });
    },
    close: () => outbox.stop(),
  };
}
