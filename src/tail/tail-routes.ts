import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { errors } from '../http/errors.js';
import { isOwnOrigin } from '../http/origin.js';
import type { Principal, ServiceAuth } from '../http/service-auth.js';
import { type AccessScope, sameScope } from '../query/access-scope.js';
import { type LineFilters, lineMatcher } from '../query/line-matcher.js';
import { parseQuery } from '../query/parser.js';
import { type QueryParams, listParam, oneParam } from '../http/filter-params.js';
import { MAX_LINES_PER_SECOND, type TailHub, evenSpread } from './hub.js';

export { MAX_LINES_PER_SECOND };
/** A client this far behind is not sent more until it catches up. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
const PING_MS = 25_000;


interface TailRequest {
  /** Who opened the tail: it closes when their key is revoked, their session ends or the organisation is deactivated. */
  principal: Principal;
  filters: LineFilters;
}

/**
 * Close code for a tail whose credentials ended: the viewer session signed out, the key revoked,
 * or the organisation deactivated.
 */
export const SESSION_ENDED = 4401;
/**
 * Revocation, and a change of the opener's groups, may happen in another process (the CLI) or at
 * another node, so tails look every so often as well as when told (TailHub.accessChanged); every
 * node reads the same configuration, so a change anywhere reaches them within this at the latest.
 */
const CREDENTIALS_CHECK_MS = 2000;

/**
 * GET /ws/tail: live tail over WebSocket, as the Mezmo CLI uses it (compat reference §4). Query
 * parameters q, hosts, apps, levels and tags; auth by Authorization: Token, servicekey, or the
 * viewer's session. Messages are JSON {"e":"logs","p":[line, ...]}; {"e":"meta",...} messages are
 * control information (sampling) that clients may ignore.
 */
export async function tailRoutes(app: FastifyInstance, deps: { auth: ServiceAuth; hub: TailHub; publicUrl: () => string | undefined }): Promise<void> {
  const prepared = new WeakMap<FastifyRequest, TailRequest>();

  app.get(
    '/ws/tail',
    {
      websocket: true,
      config: { permission: 'read' },
      // Checked before the upgrade, so a bad key or query is an ordinary HTTP error response.
      preValidation: async (request) => {
        // The same-origin policy does not cover WebSockets: without this, a page on any site could
        // open a tail that rides on the viewer's cookie. A request with a key is authorised by the
        // key, not by anything the browser adds, so its Origin does not matter.
        const principal = await deps.auth.principal(request);
        const origin = request.headers.origin;
        if (principal.sessionId !== undefined && origin !== undefined && !isOwnOrigin(origin, request.headers.host, deps.publicUrl())) {
          throw errors.foreignOrigin();
        }
        const query = request.query as QueryParams;
        const q = oneParam(query, 'q') ?? oneParam(query, 'query') ?? '';
        parseQuery(q); // a query that does not parse is refused here, before the upgrade
        const levels = listParam(query, 'levels')?.map((level) => level.toUpperCase());
        const filters = { query: q, hosts: listParam(query, 'hosts'), apps: listParam(query, 'apps'), levels, tags: listParam(query, 'tags') };
        lineMatcher(filters, principal.scope); // the scope's searches were checked when saved; this proves it
        prepared.set(request, { principal, filters });
      },
    },
    (socket: WebSocket, request) => {
      const tail = prepared.get(request)!;
      let second = Math.floor(Date.now() / 1000);
      let sentThisSecond = 0;
      let dropped = 0;
      const send = (message: unknown) => {
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
      };
      /** Opens a new second when the clock has moved on, reporting what the last one skipped. */
      const startSecond = () => {
        const now = Math.floor(Date.now() / 1000);
        if (now === second) return;
        if (dropped > 0) send({ e: 'meta', p: { sampled: true, dropped, limitPerSecond: MAX_LINES_PER_SECOND } });
        second = now;
        sentThisSecond = 0;
        dropped = 0;
      };
      // A flood's last skipped lines are reported within a second even when no line follows it, so
      // the viewer's sampling notice lasts exactly as long as the sampling.
      const sampleReport = setInterval(startSecond, 1000);
      const deliver = (records: Array<Record<string, unknown>>, skipped = 0) => {
          startSecond();
          dropped += skipped;
          const room = socket.bufferedAmount > MAX_BUFFERED_BYTES ? 0 : MAX_LINES_PER_SECOND - sentThisSecond;
          const batch = records.length > room ? evenSpread(records, Math.max(0, room)) : records;
          dropped += records.length - batch.length;
          sentThisSecond += batch.length;
          if (batch.length) send({ e: 'logs', p: batch });
      };
      /**
       * Subscribes with the opener's scope. A new scope is a new subscription (a new id), so the
       * other nodes, which keep each tail's matcher by its id, hear of it with the next announcement.
       */
      let scope: AccessScope = tail.principal.scope;
      const follow = () => deps.hub.subscribe(tail.principal.account, { filters: tail.filters, scope, matches: lineMatcher(tail.filters, scope), deliver });
      let unsubscribe = follow();
      // Pings keep proxies from cutting an idle tail.
      const ping = setInterval(() => socket.ping(), PING_MS);
      const openedAt = Date.now();
      // Checks overlap (the periodic one, each announcement) and finish in any order. Each is
      // numbered as it starts, and an answer older than the one already applied is ignored: a slow
      // check that read the scope before it was narrowed must not widen it again afterwards.
      let checksStarted = 0;
      let appliedCheck = 0;
      const checkCredentials = () => {
        const check = ++checksStarted;
        deps.auth.current(tail.principal, openedAt).then(
          (now) => {
            // A revocation holds whenever it was read: credentials do not come back.
            if (!now) return socket.close(SESSION_ENDED, 'credentials revoked or session ended');
            if (check < appliedCheck) return;
            appliedCheck = check;
            if (sameScope(now.scope, scope) || socket.readyState !== socket.OPEN) return;
            scope = now.scope;
            unsubscribe();
            unsubscribe = follow();
          },
          () => {
            // The configuration database did not answer: the tail stays open until it does.
          },
        );
      };
      const credentialsCheck = setInterval(checkCredentials, CREDENTIALS_CHECK_MS);
      // A change of groups or scopes made through this service is announced, so it holds at once.
      const stopWatching = deps.hub.watchAccess(tail.principal.account, checkCredentials);
      socket.on('close', () => {
        clearInterval(ping);
        clearInterval(credentialsCheck);
        stopWatching();
        clearInterval(sampleReport);
        unsubscribe();
      });
      send({ e: 'meta', p: { connected: true } });
    },
  );
}
