import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';

/**
 * The viewer loads only its own bundled script and stylesheet, talks only to this server (fetch and
 * the live-tail WebSocket), and never runs inside another site's frame. React's style props are set
 * through the CSSOM, which CSP does not govern, so styles need no 'unsafe-inline' either.
 */
const CONTENT_SECURITY_POLICY = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'script-src-attr': ["'none'"],
  'style-src': ["'self'"],
  // The favicon is an inline SVG data address.
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'"],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

/**
 * Browser security headers on every answer, the viewer's and the API's alike. Helmet's default
 * `upgrade-insecure-requests` is left out: Logstead often serves plain HTTP on a private network,
 * where that directive would send the viewer's requests to an https:// address nobody listens on.
 * For the same reason HSTS is only sent when the public address is https.
 *
 * Helmet's middleware is built once here and run on each request. The fastify plugin for it
 * (@fastify/helmet) builds the middleware anew for every request, parsing these directives each
 * time: under 200 senders of 150-line bodies that was about a twentieth of the main thread's work
 * (0.25 µs a line), and more garbage for every request (docs/performance.md).
 */
export async function securityHeaders(app: FastifyInstance, options: { https: boolean }): Promise<void> {
  const setHeaders = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: CONTENT_SECURITY_POLICY },
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: options.https ? { maxAge: 31_536_000, includeSubDomains: false } : false,
  });
  app.addHook('onRequest', (request, reply, done) => {
    setHeaders(request.raw, reply.raw, (error) => done(error as Error | undefined));
  });
}
