import * as client from 'openid-client';
import { type ApiError, errors } from '../../http/errors.js';
import type { OidcSettings } from '../../settings.js';

/**
 * The identity provider as openid-client sees it, discovered on first use rather than at start:
 * the provider may start after Logstead (a compose file, a restart), and a sign-in should work as
 * soon as it is up. A failed discovery is not kept, so the next sign-in tries again.
 */
export class IdentityProvider {
  private discovered: Promise<client.Configuration> | undefined;

  constructor(private readonly settings: OidcSettings) {}

  get issuer(): string {
    return this.settings.issuer;
  }

  configuration(): Promise<client.Configuration> {
    this.discovered ??= this.discover().catch((error: unknown) => {
      this.discovered = undefined;
      throw error;
    });
    return this.discovered;
  }

  /**
   * The scopes to ask for: the person's e-mail and name, and (when a groups claim is configured)
   * a scope of that name if the provider offers one, as Keycloak, Okta and this project's test
   * provider do. Providers reject scopes they do not know, so only an advertised one is asked for.
   */
  scopes(configuration: client.Configuration): string {
    const scopes = ['openid', 'email', 'profile'];
    const offered = configuration.serverMetadata().scopes_supported ?? [];
    const groupsClaim = this.settings.groupsClaim;
    if (groupsClaim && offered.includes(groupsClaim) && !scopes.includes(groupsClaim)) scopes.push(groupsClaim);
    return scopes.join(' ');
  }

  private async discover(): Promise<client.Configuration> {
    const { issuer, clientId, clientSecret } = this.settings;
    // Settings accept an http:// issuer only on a loopback address (a local provider or a test).
    const insecure = issuer.startsWith('http:');
    // client_secret_basic: the default of OpenID Connect, so every provider takes it.
    return client.discovery(new URL(issuer), clientId, undefined, client.ClientSecretBasic(clientSecret), insecure ? { execute: [client.allowInsecureRequests] } : undefined);
  }
}

/**
 * What went wrong, in words, from what openid-client threw while it checked the provider's answer
 * and exchanged the code. Its errors name the failed check in their cause's message.
 */
export function refusalOf(error: unknown, issuer: string): ApiError {
  if (error instanceof client.AuthorizationResponseError) return errors.ssoProviderRefused(error.error, error.error_description);
  if (error instanceof client.ResponseBodyError) return errors.ssoCodeRefused(error.error, error.error_description);
  if (error instanceof client.ClientError) {
    const detail = error.cause instanceof Error ? error.cause.message : error.message;
    if (/"state"/.test(detail)) return errors.ssoStateMismatch();
    if (/"nonce"/.test(detail)) return errors.ssoNonceMismatch();
    if (/"iss"/.test(detail)) return errors.ssoIssuerMismatch();
    if (/"aud"|"azp"/.test(detail)) return errors.ssoAudienceMismatch();
    if (/timed out|aborted/.test(detail)) return errors.ssoProviderUnreachable(issuer);
    return errors.ssoCheckFailed(detail);
  }
  // fetch's own failure (connection refused, DNS): the provider is down or misnamed.
  if (error instanceof TypeError) return errors.ssoProviderUnreachable(issuer);
  throw error;
}
