import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Configuration } from 'oidc-provider';

/** The claims a test person's login carries (oidc-provider's dev login takes any password). */
export interface TestPerson {
  email?: string;
  email_verified?: boolean;
  name?: string;
  groups?: string[];
}

export interface TestClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

/** Where a diverted token request goes instead, with which client's credentials. */
export interface TokenDiversion {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
}

export interface TestOpenIdProvider {
  /** e.g. http://127.0.0.2:41234: its HTTP listener is up before the provider is configured. */
  issuer: string;
  /** Logins and their claims; a login not listed here cannot sign in. */
  people: Map<string, TestPerson>;
  /** Starts the provider itself, with these clients (their redirect URIs are known only now). */
  configure(clients: TestClient[]): void;
  /**
   * Sends this provider's token requests elsewhere (undefined: answers them itself), as a
   * compromised or impersonated token endpoint would: the way to hand Logstead an ID token from
   * another issuer, or for another audience, that the honest provider would never send it.
   */
  divertTokenRequests(diversion: TokenDiversion | undefined): void;
  close(): Promise<void>;
}

/**
 * A real OpenID provider (oidc-provider from npm) in this process, on a loopback address of its
 * own (127.0.0.2 by default): another site than the Logstead under test at 127.0.0.1, so browser
 * tests see the same cross-site redirects and SameSite rules as with a real provider. Its dev
 * interactions serve the login form; consent is given without a page, as for a first-party app.
 */
export async function startOpenIdProvider(host = '127.0.0.2'): Promise<TestOpenIdProvider> {
  let provider: Provider | undefined;
  let diversion: TokenDiversion | undefined;
  const people = new Map<string, TestPerson>();
  const server = http.createServer((request, response) => {
    // A diverted request carries DIVERTED, so a diversion to this same provider is answered here.
    if (diversion && request.method === 'POST' && request.url?.split('?')[0] === '/token' && !request.headers[DIVERTED]) {
      return void divert(request, response, diversion).catch((error: Error) => response.writeHead(502).end(`diverting the token request failed: ${error.message}`));
    }
    if (!provider) return void response.writeHead(503).end('the test provider is not configured yet');
    provider.callback()(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const issuer = `http://${host}:${(server.address() as AddressInfo).port}`;

  const configuration = (clients: TestClient[]): Configuration => ({
    clients: clients.map((client) => ({ ...client, grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic' })),
    scopes: ['openid', 'email', 'profile', 'groups'],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    cookies: { keys: ['test provider cookie key'] },
    async findAccount(_ctx, sub) {
      const person = people.get(sub);
      return person && { accountId: sub, claims: async () => ({ sub, ...person }) };
    },
    // Consent without a page: every client here is first-party.
    async loadExistingGrant(ctx) {
      const existing = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session!.grantIdFor(ctx.oidc.client!.clientId);
      if (existing) return ctx.oidc.provider.Grant.find(existing);
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId });
      grant.addOIDCScope('openid email profile groups');
      await grant.save();
      return grant;
    },
  });

  return {
    issuer,
    people,
    configure(clients) {
      provider = new Provider(issuer, configuration(clients));
    },
    divertTokenRequests(to) {
      diversion = to;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const DIVERTED = 'x-test-diverted';

async function divert(request: http.IncomingMessage, response: http.ServerResponse, to: TokenDiversion): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const credentials = `${encodeURIComponent(to.clientId)}:${encodeURIComponent(to.clientSecret)}`;
  const answer = await fetch(to.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': request.headers['content-type'] ?? 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(credentials).toString('base64')}`, [DIVERTED]: '1' },
    body: Buffer.concat(chunks),
  });
  response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json', 'cache-control': 'no-store' });
  response.end(Buffer.from(await answer.arrayBuffer()));
}

/** Cookies per host, enough to walk a sign-in with fetch as a browser would. */
export class CookieJar {
  private readonly byHost = new Map<string, Map<string, string>>();

  take(url: string, response: Response): void {
    const cookies = this.byHost.get(new URL(url).host) ?? new Map<string, string>();
    this.byHost.set(new URL(url).host, cookies);
    for (const header of response.headers.getSetCookie()) {
      const [pair, ...attributes] = header.split(';');
      const name = pair.slice(0, pair.indexOf('=')).trim();
      const value = pair.slice(pair.indexOf('=') + 1).trim();
      const expired = attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute) || (/^\s*expires=/i.test(attribute) && Date.parse(attribute.split('=')[1]) < Date.now()));
      if (expired || value === '') cookies.delete(name);
      else cookies.set(name, value);
    }
  }

  header(url: string): string {
    return [...(this.byHost.get(new URL(url).host) ?? new Map<string, string>())].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  get(url: string, name: string): string | undefined {
    return this.byHost.get(new URL(url).host)?.get(name);
  }

  /** GET without following redirects, sending and keeping cookies. */
  async visit(url: string): Promise<Response> {
    const response = await fetch(url, { redirect: 'manual', headers: { cookie: this.header(url) } });
    this.take(url, response);
    return response;
  }

  async postForm(url: string, form: Record<string, string>): Promise<Response> {
    const response = await fetch(url, { method: 'POST', redirect: 'manual', headers: { cookie: this.header(url), 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
    this.take(url, response);
    return response;
  }
}

/**
 * Logs `login` in at the provider for an authorisation request (as Logstead's /api/sso/start
 * made it, or altered by a test) and returns where the provider sends the browser back: the
 * callback address with the code, state and iss. Uses its own jar: the provider's cookies only.
 */
export async function authorizeAt(authorizationUrl: string, login: string): Promise<URL> {
  const jar = new CookieJar();
  let url = authorizationUrl;
  let loggedIn = false;
  for (let step = 0; step < 10; step++) {
    const response = await jar.visit(url);
    if (response.status === 200 && !loggedIn) {
      // The dev login form posts to the interaction's own address.
      await response.text();
      const posted = await jar.postForm(url, { prompt: 'login', login, password: 'any password' });
      loggedIn = true;
      url = new URL(posted.headers.get('location')!, url).href;
      continue;
    }
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) throw new Error(`the provider answered ${response.status}: ${(await response.text()).slice(0, 500)}`);
    const next = new URL(location, url);
    if (next.origin !== new URL(authorizationUrl).origin) return next;
    url = next.href;
  }
  throw new Error('the provider never sent the browser back');
}
