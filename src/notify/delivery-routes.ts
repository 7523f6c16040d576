import type { FastifyInstance } from 'fastify';
import { type Channel, channelSchema, prepareChannels } from '../views/channels.js';
import type { Views } from '../views/views.js';
import { validate } from '../http/validation.js';
import { errors } from '../http/errors.js';
import { type ServiceAuth, setterOf } from '../http/service-auth.js';
import { type QueryParams, countParam, oneParam } from '../http/filter-params.js';
import type { TestSendResult } from '../wire/types.js';
import type { SendResult } from './http-send.js';
import { type DeliveryMessage, type MessageSettings, alertMessage } from './messages.js';
import type { Outbox } from './outbox.js';
import { testAlertEvent } from './test-message.js';

export interface AlertRouteDeps {
  auth: ServiceAuth;
  outbox: Outbox;
  views: Views;
  /** The real sender deliveries use: the same transports, the same refusal of internal addresses. */
  send: (message: DeliveryMessage) => Promise<SendResult>;
  messageSettings: () => MessageSettings;
  now: () => number;
}

export async function deliveryRoutes(app: FastifyInstance, deps: AlertRouteDeps): Promise<void> {
  /** GET /v1/alerts/deliveries[?viewid&limit]: an organisation's notification deliveries and every attempt. */
  app.get('/v1/alerts/deliveries', { config: { permission: 'read' } }, async (request) => {
    const principal = await deps.auth.principal(request);
    const query = request.query as QueryParams;
    const viewid = oneParam(query, 'viewid');
    if (viewid !== undefined && viewid.trim() === '') throw errors.invalidParameter('Parameter "viewid" must name a view.');
    // A scoped reader sees their own deliveries and those bounded inside their scope (deliveries.ts).
    const reader = principal.scope === null ? undefined : { setBy: setterOf(principal), scope: principal.scope };
    return deps.outbox.log(principal.account, countParam(query, 'limit', 100, 1000), viewid, reader);
  });

  /**
   * POST /v1/alerts/test-channel {channel, viewid?}: sends one test notification through the channel
   * now, once, without retries, and answers with what the receiver said. The channel is the form's,
   * saved or not; with a viewid the message names that view.
   */
  app.post('/v1/alerts/test-channel', { config: { permission: 'write' } }, async (request): Promise<TestSendResult> => {
    const account = await deps.auth.account(request);
    const raw = request.body as Record<string, unknown> | undefined;
    const body = raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {};
    const [prepared] = prepareChannels([body.channel]) as unknown[];
    const channel = validate<Omit<Channel, 'alertid'>>(channelSchema.required().label('channel'), prepared);
    let view = { viewid: 'test', name: 'Test notification', query: '' };
    if (body.viewid !== undefined) {
      const found = typeof body.viewid === 'string' ? await deps.views.get(account, body.viewid) : undefined;
      if (!found) throw errors.notFound('No such view.');
      view = { viewid: found.viewid, name: found.name, query: found.filters.query ?? '' };
    }
    const event = testAlertEvent({ account, viewid: view.viewid, viewName: view.name, query: view.query, channel: { alertid: 'test', ...channel }, now: deps.now() });
    const result = await deps.send(alertMessage(event, deps.messageSettings()));
    return { ok: result.ok, status: result.status ?? null, detail: result.detail };
  });
}
