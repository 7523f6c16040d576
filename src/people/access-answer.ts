import { type ApiError, errors } from '../http/errors.js';
import { type QueryParams, choiceParam } from '../http/filter-params.js';
import type { Role } from '../wire/types.js';
import type { AccessScope } from '../query/access-scope.js';
import { AccessChangeError } from './access-guard.js';

/** Who asks for a change of access: their role, and their access scope (null: every line). */
export interface Asker {
  role: Role;
  scope: AccessScope;
}

/** A refused change of access as the API answers it: 403 naming the role or the scope, or 409 (with the members whose access would widen). */
export function accessChangeAnswer(error: AccessChangeError, asker: Asker): ApiError {
  if (error.kind === 'owner-only') return errors.roleForbidden(asker.role, 'owner');
  if (error.kind === 'beyond-scope') return errors.scopeForbidden(asker.scope ?? [], error.message);
  if (error.kind === 'widens') return errors.accessWidens(error.members);
  return errors.conflict(error.message);
}

/** Runs a change of access for an asker, answering a refusal as the API does. */
export async function answeringRefusals<T>(asker: Asker, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AccessChangeError) throw accessChangeAnswer(error, asker);
    throw error;
  }
}

/** `?widen=true`: the change may leave members in no scoped group, seeing every line. */
export const widenParam = (query: unknown): boolean => choiceParam(query as QueryParams, 'widen', ['true', 'false'], 'false') === 'true';
