import type { FastifyInstance } from 'fastify';
import { errors } from '../http/errors.js';
import type { Principal, ServiceAuth } from '../http/service-auth.js';

/**
 * POST {path}: an admin takes over one channel of a view or a preset alert, and becomes the setter
 * of its target. This is how the channels of a removed member deliver again (issue 39): only by
 * someone who answers for where the lines go now, never by a rename or another edit.
 */
export function takeoverRoute(
  app: FastifyInstance,
  auth: ServiceAuth,
  /** The route, with the view's or preset's id as its first parameter and `:alertid` as its second. */
  path: string,
  audit: string,
  takeOver: (principal: Principal, id: string, alertid: string) => Promise<unknown>,
): void {
  app.post<{ Params: Record<string, string> }>(path, { config: { permission: 'admin', audit } }, async (request) => {
    const principal = await auth.principal(request);
    const [id, alertid] = Object.values(request.params);
    const answer = await takeOver(principal, id, alertid);
    if (answer === undefined) throw errors.notFound();
    return answer;
  });
}
