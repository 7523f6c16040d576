import type { Channel } from '../api-client/client.js';

/**
 * A channel as the form holds it, in the shape the API takes: the body template is edited as text
 * and sent as the JSON it holds. Throws when that text is not JSON.
 */
export function wireChannel({ bodyTemplate, ...channel }: Channel): Record<string, unknown> {
  return bodyTemplate ? { ...channel, bodyTemplate: JSON.parse(bodyTemplate) } : channel;
}

/** What an API refusal says, one message per problem, each naming its field in words. */
export function problemsOf(body: { error: string; details?: Array<{ message: string; field?: string }> }): string[] {
  return body.details?.map((detail) => (detail.field ? `${detail.field}: ${detail.message}` : detail.message)) ?? [body.error];
}
