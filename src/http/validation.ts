import type Joi from 'joi';
import { errors } from './errors.js';
import { fieldLabel } from './field-labels.js';

/**
 * Validates a request body with a Joi schema and returns the converted value ("true" becomes true,
 * defaults filled in). Failures become Mezmo's envelope, whose messages are Joi's own:
 * `"channels[0].triggerinterval" must be one of [...]`, with `key` the label of the path, and
 * `field` its name in words for a form to show ("Alert channel 1: Time window").
 */
export function validate<T>(schema: Joi.Schema, body: unknown): T {
  const { value, error } = schema.validate(body ?? {}, { abortEarly: false, stripUnknown: true, convert: true });
  if (error) {
    throw errors.validationFailed(
      error.details.map((detail) => ({
        message: detail.message,
        key: String(detail.context?.label ?? detail.path.join('.')),
        // "must contain at least one of [...]" is about the whole body: name the fields it wants.
        field: detail.type === 'object.missing' && Array.isArray(detail.context?.peers)
          ? `One of: ${(detail.context.peers as string[]).map((peer) => fieldLabel([peer])).join(', ')}`
          : fieldLabel(detail.path),
      })),
    );
  }
  return value as T;
}
