import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

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
 */
export async function securityHeaders(app: FastifyInstance, options: { https: boolean }): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: { useDefaults: false, directives: CONTENT_SECURITY_POLICY },
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: options.https ? { maxAge: 31_536_000, includeSubDomains: false } : false,
  });
}
