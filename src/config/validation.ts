import type Joi from 'joi';
import { errors } from '../http/errors.js';

/**
 * Validates a request body with a Joi schema and returns the converted value ("true" becomes true,
 * defaults filled in). Failures become Mezmo's envelope, whose messages are Joi's own:
 * `"channels[0].triggerinterval" must be one of [...]`, with `key` the label of the path.
 */
export function validate<T>(schema: Joi.Schema, body: unknown): T {
  const { value, error } = schema.validate(body ?? {}, { abortEarly: false, stripUnknown: true, convert: true });
  if (error) {
    throw errors.validationFailed(
      error.details.map((detail) => ({
        message: detail.message,
        key: String(detail.context?.label ?? detail.path.join('.')),
      })),
    );
  }
  return value as T;
}
