import { type ApiError, errors } from '../http/errors.js';
import { type QueryParams, choiceParam } from '../http/filter-params.js';
import type { Role } from '../wire/types.js';
import { AccessChangeError } from './access-guard.js';

/** A refused change of access as the API answers it: 403 naming the role, or 409 (with the members whose access would widen). */
export function accessChangeAnswer(error: AccessChangeError, role: Role): ApiError {
  if (error.kind === 'owner-only') return errors.roleForbidden(role, 'owner');
  if (error.kind === 'widens') return errors.accessWidens(error.members);
  return errors.conflict(error.message);
}

/** Runs a change of access for someone of `role`, answering a refusal as the API does. */
export async function answeringRefusals<T>(role: Role, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AccessChangeError) throw accessChangeAnswer(error, role);
    throw error;
  }
}

/** `?widen=true`: the change may leave members in no scoped group, seeing every line. */
export const widenParam = (query: unknown): boolean => choiceParam(query as QueryParams, 'widen', ['true', 'false'], 'false') === 'true';
