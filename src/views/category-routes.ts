import Joi from 'joi';
import type { FastifyInstance } from 'fastify';
import { errors } from '../http/errors.js';
import { CATEGORY_TYPES, type CategoryType } from './categories.js';
import { validate } from '../http/validation.js';
import type { ViewRoutesDeps } from './deps.js';

const nameSchema = Joi.object({ name: Joi.string().trim().min(1).max(256).required() });

export function categoryType(type: string): CategoryType {
  if (!(CATEGORY_TYPES as readonly string[]).includes(type)) {
    throw errors.invalidParameter(`A category type is one of ${CATEGORY_TYPES.join(', ')}, not "${type}".`);
  }
  return type as CategoryType;
}

/** Checks a category's name as a client sends it ({name}); shared with the importer (import-mezmo). */
export const parseCategoryName = (raw: unknown): string => validate<{ name: string }>(nameSchema, raw).name;

export async function categoryRoutes(app: FastifyInstance, deps: ViewRoutesDeps): Promise<void> {
  const { auth, categories } = deps;
  type Params = { type: string; id: string };

  app.get<{ Params: Params }>('/v1/config/categories/:type', { config: { permission: 'read' } }, async (request) =>
    await categories.list(await auth.account(request), categoryType(request.params.type)),
  );

  app.get<{ Params: Params }>('/v1/config/categories/:type/:id', { config: { permission: 'read' } }, async (request) => {
    const category = await categories.get(await auth.account(request), categoryType(request.params.type), request.params.id);
    if (!category) throw errors.notFound();
    return category;
  });

  app.post<{ Params: Params }>('/v1/config/categories/:type', { config: { permission: 'write', audit: 'category' } }, async (request) => {
    const account = await auth.account(request);
    const type = categoryType(request.params.type);
    return await categories.create(account, type, parseCategoryName(request.body));
  });

  app.put<{ Params: Params }>('/v1/config/categories/:type/:id', { config: { permission: 'write', audit: 'category' } }, async (request) => {
    const account = await auth.account(request);
    const type = categoryType(request.params.type);
    const renamed = await categories.rename(account, type, request.params.id, parseCategoryName(request.body));
    if (!renamed) throw errors.notFound();
    return renamed;
  });

  app.delete<{ Params: Params }>('/v1/config/categories/:type/:id', { config: { permission: 'write', audit: 'category' } }, async (request) => {
    if (!(await categories.delete(await auth.account(request), categoryType(request.params.type), request.params.id))) {
      throw errors.notFound();
    }
    return { deleted: true };
  });
}
